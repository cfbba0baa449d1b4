package import ArgumentParser
import JobdConfig
import JobdControl
import JobctlReports

extension Jobctl {
    /// `jobctl status [JOB]`: the daemon, or one job.
    package struct Status: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the daemon's status, or one job's.",
            discussion: """
                For jobd: its pid, instance, generation, uptime, the running and the failed jobs by \
                name, broken files, and the last reload's outcome. For a job: its file, command, triggers, next elapse, last run and its result \
                (success, exit-code, signal, core-dump, timeout, oom-kill, start-failed, stopped), the runs in \
                flight with their pid, a pending retry, and the last 10 lines of the last run's \
                output from the journal. Exit status: 0; 3 when the job's last run failed (as \
                systemctl status does, so a monitoring check can call it); 1 when there is no such \
                job; 2 when no daemon runs; 4 when jobd refuses the caller. With --json, errors come as \
                {"error": ..., "exitStatus": ...}.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "A job's name; without it, the daemon's status.", completion: .custom(Jobctl.completeJobNames))
        var job: String?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        package init() {}

        /// `none`, or the count and the names (at most 10 of them).
        static func names(_ names: [String]) -> String {
            guard !names.isEmpty else { return "none" }
            return "\(names.count): " + names.prefix(10).joined(separator: ", ") + (names.count > 10 ? ", …" : "")
        }

        package func run() throws {
            let (_, response) = try Jobctl.ask(runtime, ControlRequest(command: .status, job: job), json: json)
            let now = TimeFormat.nowUSec()
            if let daemon = response.daemon {
                if json { return Jobctl.printJSON { daemon.write(to: &$0) } }
                print("jobd (pid \(daemon.pid)), instance \(daemon.instance)")
                print("     Since: \(TimeFormat.wallClock(daemon.startedRealtimeUSec)); \(TimeFormat.relative(daemon.startedRealtimeUSec, now: now))")
                print("Generation: \(daemon.generation), \(daemon.jobs) job(s)")
                // Which jobs run and which failed, by name: what an operator looks at first.
                let jobs = (try? Jobctl.ask(runtime, ControlRequest(command: .list, brief: true)).1.jobs) ?? nil
                if let jobs {
                    let running = jobs.filter { $0.running > 0 }.map(\.name).sorted()
                    let failed = jobs.filter { !$0.disabledByErrors && $0.lastResult.flatMap(RunResult.init(rawValue:))?.isFailure == true }
                        .map(\.name).sorted()
                    print("   Running: \(Self.names(running))")
                    print("    Failed: \(Self.names(failed))")
                } else {
                    print("   Running: \(daemon.runningJobs) run(s)")
                }
                if let broken = daemon.brokenFiles {
                    print("    Broken: \(broken.count) file(s) with errors")
                    for error in broken { print("  \(TerminalText.escapedLines(error))") }
                }
                // The owners' bookkeeping only when something is wrong with it (jobctl audit has the rest).
                if daemon.leakedOwners > 0 || daemon.retiredOwnersAlive > 0 {
                    print("    Owners: \(daemon.retiredOwnersAlive) retired but alive, \(daemon.leakedOwners) leaked (jobctl audit)")
                }
                if let reload = daemon.lastReload {
                    let outcome = reload.accepted ? "accepted" : "rejected (\(reload.errors.count) error(s))"
                    print("Last reload: \(outcome) at \(TimeFormat.wallClock(reload.finishedRealtimeUSec))")
                    // The broken files' errors are listed above already: only the others.
                    let listed = Set(daemon.brokenFiles ?? [])
                    for error in reload.errors where !listed.contains(error) { print("  \(TerminalText.escapedLines(error))") }
                } else {
                    print("Last reload: none")
                }
            } else if let job = response.jobStatus {
                if json { Jobctl.printJSON { job.write(to: &$0) } } else { show(job, now: now) }
                if job.lastResult.flatMap(RunResult.init(rawValue:))?.isFailure == true {
                    throw ExitCode(ExitStatus.lastRunFailed)
                }
            }
        }

        /// What a job file says (description, command, triggers, errors quoting its values) is
        /// escaped (``TerminalText``): a user's own job is shown to root too.
        private func show(_ job: JobStatus, now: Int64) {
            let escaped = TerminalText.escaped
            print("\(job.name)\(job.description.map { " - \(escaped($0))" } ?? "")")
            print("      File: \(escaped(job.file))")
            if let errors = job.errors {
                print("    Errors: \(job.owner == 0 ? "the job is not loaded" : "the job runs its previous definition")")
                for error in errors { print("  \(TerminalText.escapedLines(error))") }
                if job.owner == 0 { return }
            }
            print("   Command: \(escaped(job.command))")
            print("  Triggers: \(job.triggers.isEmpty ? "none (started by jobctl run, OnFailure= or OnSuccess=)" : escaped(job.triggers.joined(separator: " ")))")
            if job.disabled == true {
            print("      Next: disabled: its triggers start no runs (jobctl enable \(job.name))")
        } else {
            print("      Next: \(TimeFormat.wallClock(job.nextElapseUSec)); \(TimeFormat.relative(job.nextElapseUSec, now: now))")
        }
            print("  Last run: \(TimeFormat.wallClock(job.lastStartUSec)); \(TimeFormat.relative(job.lastStartUSec, now: now))"
                  + (job.lastStartCause.map { $0 == "timer" ? "" : " (\($0))" } ?? ""))
            if let node = job.lastNode {
                print(" Last node: \(node) (RunOn=one-node: the node that claimed the last elapse)")
            }
            if let duration = job.lastDurationUSec {
                print("  Duration: \(TimeSpan(microseconds: duration).description(accuracy: TimeSpan(microseconds: 1_000)))")
            }
            if let result = job.lastResult {
                let status = job.lastExitStatus.map { ", status \($0)" } ?? ""
                print("    Result: \(Color.result(result, on: .standardOutput))\(status)\(job.lastOutcome.map { " (\($0))" } ?? "")")
            } else {
                print("    Result: n/a")
            }
            if let runs = job.runs {
                for run in runs {
                    print("   Running: run \(run.runID) since \(TimeFormat.wallClock(run.startedUSec)), pid \(run.pid.map(String.init) ?? "starting")"
                          + (run.cause == "timer" ? "" : " (\(run.cause))"))
                }
            } else {
                print("   Running: no")
            }
            if let retry = job.retryUSec {
                print("     Retry: at \(TimeFormat.wallClock(retry)); \(TimeFormat.relative(retry, now: now))")
            }
            if let lastRun = job.lastRunID {
                print("    Run ID: \(lastRun)")
                switch OutputTail.lines(job: job.name, runID: lastRun, count: 10) {
                case .lines(let lines):
                    if !lines.isEmpty { print("") }
                    for line in lines { print(line) }
                case .runNotInJournal:
                    print("\n(no journal entry of this run: jobd logs to stderr, or the entries were rotated away)")
                case .unreadable(let reason):
                    print("\n(its output is in the journal, which cannot be read here: \(reason); members of systemd-journal or adm may read it)")
                }
            }
        }
    }
}

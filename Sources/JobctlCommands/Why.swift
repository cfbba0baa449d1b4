package import ArgumentParser
import JobdCalendar
import JobdControl
import SystemdKit
import JobctlReports

extension Jobctl {
    /// `jobctl why JOB`: the job's last elapses, what became of each and why, and what will decide
    /// the next one. The explaining is ``WhyReport``'s; this reads the journal and the job's status.
    package struct Why: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "why",
            abstract: "Explain why a job's last elapses ran or did not, and what decides the next.",
            discussion: """
                One line for each of the job's last N elapses (a trigger's scheduled time) and each run \
                something else asked for, oldest first: the time, the outcome (ran, running, failed, \
                skipped, waiting, missed) and why: the run and its result; for a skipped elapse \
                jobd's reason (Overlap=, jobctl disable, the Condition…= that did not hold, the fleet \
                node that claimed it, the fleet's database unavailable, no free slot under \
                MaxConcurrentRuns= with the waiting-runs budget spent, …); for a missed one the window it fell in (jobd not running, \
                the machine suspended, the wall clock set forward); retries (Restart=), runs started \
                by hand (jobctl run) or by another job's OnFailure=/OnSuccess=, and Persistent= \
                catch-ups. Then 'Next:': the next elapse and what will decide it (Overlap=, the runs \
                in flight, Condition…=, Persistent=, jobctl disable).

                Read from jobd's entries in the local journal (written by root: SYSLOG_IDENTIFIER=jobd) \
                and the job's status from jobd. Missed elapses are worked out from the job's \
                OnCalendar= and Cron= triggers as they are now; an elapse of a monotonic trigger \
                (OnUnitActiveSec=, …) that jobd never reached leaves no trace to show. With --user, \
                jobd reads the journal for you, for your own jobs only.

                Exit status: 0 when the last elapse that fell due ran (whatever its result: the line \
                says it), 1 when it did not (skipped, missed, still waiting), 2 when no daemon runs or \
                the journal cannot be read, 3 when there is no such job or the journal holds no \
                elapse of it, 4 when jobd refuses the caller, 64 on invalid arguments.
                """)

        @Argument(help: "The job's name.", completion: .custom(Jobctl.completeJobNames))
        var job: String

        @Option(name: [.customShort("n"), .customLong("lines")], help: ArgumentHelp("Show the last N elapses and runs.", valueName: "N"))
        var count = 10

        @Flag(help: "Print JSON for scripts.")
        var json = false

        /// `jobctl --user why JOB`: jobd reads the journal for the caller's own job.
        @Flag(name: .customLong("from-jobd"), help: .hidden)
        var fromJobd = false

        @OptionGroup var runtime: RuntimeOptions

        package init() {}

        package func validate() throws {
            guard count > 0 else { throw ValidationError("-n wants a number of elapses, 1 or more") }
        }

        /// No daemon, or a journal that cannot be read.
        static let unreadable: Int32 = 2
        /// No such job, or the journal holds no elapse of it.
        static let noData: Int32 = 3

        package func run() throws {
            let status = try jobStatus()
            let entries: [JournalEntry]
            do {
                entries = fromJobd
                    ? try WhyJournal.fromJobd(job: job, runs: Self.runsToRead(count), runtime: runtime)
                    : try JournalReader.jobHistory(of: job, in: .local, runs: Self.runsToRead(count)) { $0.writtenByRoot }
            } catch let error as SystemdError {
                throw fail("cannot read the journal: \(error)", Self.unreadable)
            }
            let zone = TimeZoneRules.current()
            let report = WhyReport(job: job, entries: entries, status: status, count: count, nowUSec: TimeFormat.nowUSec(),
                                   schedule: Self.schedule(of: status.triggers, zone: zone))
            if json {
                Jobctl.printJSON { report.write(to: &$0, time: TimeFormat.wallClock) }
            } else {
                let now = TimeFormat.nowUSec()
                print(report.text(time: TimeFormat.wallClock, relative: { TimeFormat.relative($0, now: now) }), terminator: "")
            }
            switch report.lastDueRan {
            case true?: return
            case false?: throw ExitCode(Jobctl.ExitStatus.failure)
            case nil: throw ExitCode(Self.noData)
            }
        }

        /// How many runs to read back: retries and runs by hand share the lines with the elapses.
        static func runsToRead(_ count: Int) -> Int { count * 3 + 10 }

        /// The job's status from jobd; exits 3 for a job jobd does not know, 4 when it refuses the caller.
        private func jobStatus() throws -> JobStatus {
            let (_, response) = try Jobctl.exchange(runtime, ControlRequest(command: .status, job: job))
            if response.type == .error {
                let code = response.code == .permissionDenied ? Jobctl.ExitStatus.permissionDenied : Self.noData
                throw fail(response.message ?? "jobd reported an error", code)
            }
            guard let status = response.jobStatus else { throw fail("jobd sent no status of \(job)", Self.noData) }
            return status
        }

        /// The elapses of the calendar triggers among `triggers` (as a status names them) in a window.
        static func schedule(of triggers: [String], zone: TimeZoneRules) -> (Int64, Int64) -> [Int64] {
            let specs: [(RealtimeInstant) -> RealtimeInstant?] = triggers.compactMap { trigger in
                if trigger.hasPrefix("OnCalendar="), let spec = try? CalendarSpec.parse(String(trigger.dropFirst(11)), localZone: zone) {
                    return { spec.nextElapse(after: $0, in: zone) }
                }
                if trigger.hasPrefix("Cron="), let spec = try? CronSpec.parse(String(trigger.dropFirst(5))) {
                    return { spec.nextElapse(after: $0, in: zone) }
                }
                return nil
            }
            return { from, to in
                var elapses: [Int64] = []
                var after = RealtimeInstant(microseconds: from)
                // A window of years of a minutely job is cut off: one line tells of it all the same.
                while elapses.count < 100_000, let next = specs.compactMap({ $0(after) }).min(), next.microseconds <= to {
                    elapses.append(next.microseconds)
                    after = next
                }
                return elapses
            }
        }

        private func fail(_ message: String, _ code: Int32) -> ExitCode {
            var standardError = StandardError()
            print("jobctl why: \(message)", to: &standardError)
            if json { Jobctl.printJSONError(message, exitStatus: code) }
            return ExitCode(code)
        }
    }
}

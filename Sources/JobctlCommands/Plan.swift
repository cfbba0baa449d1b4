package import ArgumentParser
import JobdCalendar
import JobdConfig
import JobdControl
import JobdFleet
import JobdScheduler
import SystemdKit
import JobdTimers
import JobctlReports

extension Jobctl {
    /// `jobctl plan`: which jobs fall due when, as the running jobd will make them: it simulates its
    /// schedule from its own histories (``ScheduleText`` prints the answer).
    package struct Plan: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Show which jobs fall due when, as jobd will run them.",
            discussion: """
                Asks the running jobd, which simulates its schedule from each job's history (last \
                trigger, last run, when its schedule started) with the rules it fires by, so the plan \
                is what this jobd will do. Each elapse is one line in time order: WHEN (a range \
                EARLIEST - LATEST where RandomizedDelaySec= spreads it), JOB, TRIGGER and WHY: \
                scheduled; catch-up, a Persistent= slot missed while jobd was down, at once; missed, a \
                slot that passed while jobd was busy or the clock moved, at once; disabled, skipped \
                when it comes (jobctl enable). A job with Restart= shows its retries after a failed \
                run. A run is taken to end as it starts, so OnUnitActiveSec= and OnUnitInactiveSec= \
                count on from each elapse. Times take systemd's timestamp syntax, as journalctl takes them: \
                '2026-11-23 06:00', 'tomorrow', '+2h', '@1767225600'. With --config-dir, or when no \
                jobd runs, jobctl reads the job files itself and plans as a jobd started now would run \
                them: no history, so no catch-up, and users' own jobs left out. Exit status: 0; 1 for \
                an unknown job or time, or a configuration that cannot be read; 2 when jobd does not \
                answer; 4 when jobd refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Option(help: "Show elapses from this time on (default: now).")
        var from: String?

        @Option(help: "Show elapses up to this time (default: a day after --from, or with -n no bound).")
        var until: String?

        @Option(name: .customShort("n"), help: "Show at most this many elapses (default 100).")
        var count: Int?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        @Option(name: .customLong("config-dir"),
                help: "Plan from this configuration directory's job files, as a jobd started now would run them, without asking jobd (default when no jobd runs: /etc/jobd).")
        var configDirectory: String?

        @Argument(help: "The jobs (default: every job).")
        var jobs: [String] = []

        package init() {}

        package func run() throws {
            var standardError = StandardError()
            let now = UInt64(max(TimeFormat.nowUSec(), 0))
            let parser = JournalTime()
            let fromUSec: UInt64, untilUSec: UInt64?
            do {
                fromUSec = try from.map { text throws(JournalTime.Failure) in try parser.parse(text, nowUSec: now) } ?? now
                untilUSec = try until.map { text throws(JournalTime.Failure) in try parser.parse(text, nowUSec: now) }
            } catch {
                print("jobctl: \(error)", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            if let count, count < 1 {
                print("jobctl: -n takes a number of elapses from 1", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            var request = ControlRequest(command: .plan)
            request.jobs = jobs.isEmpty ? nil : jobs
            request.fromUSec = Int64(clamping: fromUSec)
            // A day by default, as far as a daily job's next run; -n alone sets no bound.
            request.untilUSec = untilUSec.map { Int64(clamping: $0) } ?? (count == nil ? Int64(clamping: fromUSec + 86_400_000_000) : nil)
            request.limit = count ?? 100
            let schedule = try configDirectory.map { try Self.offline($0, request) } ?? askOrRead(request)
            let elapses = schedule.elapses
            if schedule.incomplete == true {
                print("jobctl: some jobs fall due too often before --from to be planned, and are left out; plan from nearer now",
                      to: &standardError)
            }
            if json {
                Jobctl.printJSON { writer in
                    writer.beginArray()
                    for elapse in elapses { elapse.write(to: &writer) }
                    writer.endArray()
                }
                return
            }
            print(ScheduleText.plan(elapses), terminator: "")
        }

        /// jobd's plan; when no jobd runs, the plan of /etc/jobd's job files (``offline(_:_:)``).
        private func askOrRead(_ request: ControlRequest) throws -> SchedulePreview {
            var standardError = StandardError()
            let client: ControlClient
            do {
                client = try ControlClient(runtimeDirectory: runtime.directory)
            } catch where error.code == .noDaemon {
                print("jobctl: jobd is not running; planned from /etc/jobd as a jobd started now would run it (no history)", to: &standardError)
                return try Self.offline("/etc/jobd", request)
            } catch {
                throw Jobctl.fail(error)
            }
            let response: ControlResponse
            do { response = try client.exchange(request) } catch { throw Jobctl.fail(error) }
            if response.type == .error {
                print("jobctl: \(response.message ?? "jobd reported an error")", to: &standardError)
                if json { Jobctl.printJSONError(response.message ?? "jobd reported an error", exitStatus: ExitStatus.failure) }
                throw ExitCode(ExitStatus.failure)
            }
            guard let schedule = response.schedule else {
                print("jobctl: jobd did not answer with a plan (is it older than this jobctl?)", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            return schedule
        }

        /// The plan of `directory`'s job files as a jobd started now would run them: each job's
        /// schedule counts from now, with no history (so no `Persistent=` catch-up). A broken job
        /// file is left out, as jobd leaves it out, and said on stderr.
        static func offline(_ directory: String, _ request: ControlRequest) throws -> SchedulePreview {
            var standardError = StandardError()
            let configuration = JobDirectory(path: directory, databaseCheck: FleetConnectionString.check).read()
            if let fatal = configuration.fatal {
                print(TerminalText.escapedLines(fatal.description), to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            for error in configuration.errors { print(TerminalText.escapedLines(error.description), to: &standardError) }
            let generation = Generation(jobs: configuration.jobs)
            var jobs: [SchedulePlan.Job] = []
            for name in request.jobs ?? generation.jobs.map(\.name) {
                guard let definition = generation.definition(of: name) else {
                    print("jobctl: no such job: \(TerminalText.escaped(name)) in \(directory)", to: &standardError)
                    throw ExitCode(ExitStatus.failure)
                }
                jobs.append(SchedulePlan.Job(definition))
            }
            let (monotonic, realtime) = (MonotonicInstant.now(), RealtimeInstant.now())
            let present = SchedulePlan.Present(
                wallClock: NextElapse.WallClock(monotonic: monotonic, realtime: realtime, zone: .current(), daemonStartRealtime: realtime),
                daemonStart: monotonic, hostSeed: (try? ID128.machineID()) ?? "")
            let plan = SchedulePlan.plan(
                jobs, present: present, from: RealtimeInstant(microseconds: request.fromUSec ?? realtime.microseconds),
                until: RealtimeInstant(microseconds: request.untilUSec ?? .max), limit: request.limit ?? 100)
            let elapses = plan.elapses.map { elapse in
                SchedulePreview.Elapse(job: elapse.job, earliestUSec: elapse.earliest.microseconds, latestUSec: elapse.latest.microseconds,
                    trigger: elapse.trigger, reason: elapse.reason.rawValue,
                    retries: generation.definition(of: elapse.job).flatMap { SchedulePlan.retries($0.restart) })
            }
            var schedule = SchedulePreview(nowUSec: realtime.microseconds, elapses: elapses)
            schedule.incomplete = plan.incomplete ? true : nil
            return schedule
        }
    }
}

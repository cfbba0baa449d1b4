package import ArgumentParser
import JobdCalendar
import JobdControl

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
                '2026-11-23 06:00', 'tomorrow', '+2h', '@1767225600'. Exit status: 0; 1 for an unknown \
                job or time; 2 when no daemon runs, 4 when jobd refuses the caller.
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
            let (_, response) = try Jobctl.ask(runtime, request, json: json)
            guard let schedule = response.schedule else {
                print("jobctl: jobd did not answer with a plan (is it older than this jobctl?)", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            if json {
                Jobctl.printJSON { writer in
                    writer.beginArray()
                    for elapse in schedule.elapses { elapse.write(to: &writer) }
                    writer.endArray()
                }
                return
            }
            print(ScheduleText.plan(schedule.elapses), terminator: "")
        }
    }
}

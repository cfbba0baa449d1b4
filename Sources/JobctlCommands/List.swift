package import ArgumentParser
import Glibc
import JobdConfig
import JobdControl
import JobctlReports
import JobdSystem
import SystemPackage

extension Jobctl {
    /// `jobctl list`: every job with its next and last elapse, like `systemctl list-timers`.
    package struct List: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List jobs by their next elapse, like systemctl list-timers.",
            discussion: """
                RESULT is the last run's result (success, exit-code, signal, core-dump, timeout, \
                oom-kill, start-failed, stopped), failures in red on a terminal, or "running" while a run is \
                in flight; a job file with errors is \
                listed with RESULT "bad-setting" and its first error; a disabled job (jobctl disable) has \
                LEFT "disabled". NEXT and LAST are local times \
                (as TZ says); LAST is the last start, whatever started it (a trigger, or as marked after \
                PASSED: manual for jobctl run, retry, on-failure, on-success); LEFT and PASSED are \
                rounded as systemctl list-timers rounds them. Exit \
                status: 0; with --failed, 3 when it lists any job (as jobctl status exits 3 after a \
                failure, for monitoring checks) and 0 when none; 2 when no daemon runs, 4 when jobd \
                refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Flag(help: "Print JSON for scripts.")
        var json = false

        @Flag(help: "List only jobs whose last run failed (and job files with errors).")
        var failed = false

        package init() {}

        package func run() throws {
            // The table shows neither files nor commands: jobd leaves them out (issue 19).
            let (_, response) = try Jobctl.ask(runtime, ControlRequest(command: .list, brief: json ? nil : true), json: json)
            var jobs = response.jobs ?? []
            if failed {
                jobs = jobs.filter { $0.disabledByErrors || $0.lastResult.flatMap(RunResult.init(rawValue:))?.isFailure == true }
            }
            if json {
                // Written by hand: the same text as JSONEncoder's, pretty and sorted, and out in
                // pieces of about 64 KiB, into the same memory again and again (issue 19).
                let piece = 1 << 16
                var writer = JSONWriter(pretty: true, capacity: piece + 4_096)
                writer.beginArray()
                for index in jobs.indices {
                    jobs[index].write(to: &writer)
                    if writer.bytes.count >= piece { writer.takeBytes(Self.write) }
                }
                writer.endArray()
                writer.newline()
                Self.write(writer.bytes)
                if failed, !jobs.isEmpty { throw ExitCode(3) }
                return
            }
            Self.write(ListTable.render(jobs, now: TimeFormat.nowUSec(), colour: Color.enabled(on: .standardOutput)))
            if failed, !jobs.isEmpty { throw ExitCode(3) }
        }

        /// Writes `bytes` to standard output at once, after what `print` has buffered.
        private static func write(_ bytes: [UInt8]) {
            fflush(nil)
            try? FileDescriptor.standardOutput.writeEvery(bytes)
        }
    }
}

package import ArgumentParser
import JobdConfig
import JobdControl

extension Jobctl {
    /// `jobctl list`: every job with its next and last elapse, like `systemctl list-timers`.
    package struct List: ParsableCommand {
        package static let configuration = CommandConfiguration(
            abstract: "List jobs by their next elapse, like systemctl list-timers.",
            discussion: """
                RESULT is the last run's result (success, exit-code, signal, core-dump, timeout, \
                start-failed, stopped), failures in red on a terminal; a job file with errors is \
                listed with RESULT "bad-setting" and its first error; a disabled job (jobctl disable) has \
                LEFT "disabled". NEXT and LAST are local times \
                (as TZ says); LAST is the last start, whatever started it (a trigger, or as marked after \
                PASSED: manual for jobctl run, retry, on-failure, on-success); LEFT and PASSED are \
                rounded as systemctl list-timers rounds them. Exit \
                status: 0, 2 when no daemon runs, 4 when jobd refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Flag(help: "Print JSON for scripts.")
        var json = false

        @Flag(help: "List only jobs whose last run failed (and job files with errors).")
        var failed = false

        package init() {}

        package func run() throws {
            let (_, response) = try Jobctl.ask(runtime, ControlRequest(command: .list), json: json)
            var jobs = response.jobs ?? []
            if failed {
                jobs = jobs.filter { $0.disabledByErrors || $0.lastResult.flatMap(RunResult.init(rawValue:))?.isFailure == true }
            }
            if json {
                Jobctl.printJSON(jobs)
                return
            }
            let now = TimeFormat.nowUSec()
            let rows = [["NEXT", "LEFT", "LAST", "PASSED", "RESULT", "JOB", "TRIGGER"]] + jobs.map { job in
                [
                    job.disabled == true ? "-" : TimeFormat.wallClock(job.nextElapseUSec),
                    job.disabled == true ? "disabled" : TimeFormat.relative(job.nextElapseUSec, now: now),
                    TimeFormat.wallClock(job.lastStartUSec),
                    TimeFormat.relative(job.lastStartUSec, now: now)
                        + (job.lastStartCause.map { $0 == "timer" ? "" : " (\($0))" } ?? ""),
                    job.disabledByErrors ? "bad-setting" : job.lastResult ?? "-",
                    job.name,
                    job.errors?.first.map { $0.split(separator: "\n").first.map(String.init) ?? $0 } ?? job.triggers.joined(separator: " "),
                ]
            }
            // In a fleet, which node ran each RunOn=one-node job last.
            let fleet = jobs.contains { $0.lastNode != nil }
            printTable(fleet ? zip(rows, ["NODE"] + jobs.map { $0.lastNode ?? "-" }).map { $0 + [$1] } : rows, colour: 4)
            print("\n\(jobs.count) job(s) listed.")
        }
    }

    /// Prints `rows` in aligned columns; the cells of column `colour` (below the header) are
    /// results, coloured as ``Color/result(_:on:)`` does.
    static func printTable(_ rows: [[String]], colour: Int? = nil) {
        guard let columns = rows.first?.count else { return }
        let widths = (0..<columns).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for (number, row) in rows.enumerated() {
            let cells = row.enumerated().map { index, cell in
                let padding = index == columns - 1 ? "" : String(repeating: " ", count: widths[index] - cell.count)
                return (index == colour && number > 0 ? Color.result(cell, on: .standardOutput) : cell) + padding
            }
            print(cells.joined(separator: " "))
        }
    }
}

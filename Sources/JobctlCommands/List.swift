import ArgumentParser
import JobdControl

extension Jobctl {
    /// `jobctl list`: every job with its next and last elapse, like `systemctl list-timers`.
    public struct List: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "List jobs by their next elapse, like systemctl list-timers.",
            discussion: """
                NEXT and LAST are local times (as TZ says); LEFT and PASSED are rounded as systemctl \
                list-timers rounds them. Exit status: 0, 1 when jobd refuses the caller, 2 when no \
                daemon runs.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Flag(help: "Print JSON for scripts.")
        var json = false

        public init() {}

        public func run() throws {
            let (_, response) = try Jobctl.ask(runtime, ControlRequest(command: .list))
            let jobs = response.jobs ?? []
            if json {
                Jobctl.printJSON(jobs)
                return
            }
            let now = TimeFormat.nowUSec()
            let rows = [["NEXT", "LEFT", "LAST", "PASSED", "JOB", "TRIGGER"]] + jobs.map { job in
                [
                    TimeFormat.wallClock(job.nextElapseUSec), TimeFormat.relative(job.nextElapseUSec, now: now),
                    TimeFormat.wallClock(job.lastTriggerUSec), TimeFormat.relative(job.lastTriggerUSec, now: now),
                    job.name, job.triggers.joined(separator: " "),
                ]
            }
            printTable(rows)
            print("\n\(jobs.count) job(s) listed.")
        }
    }

    static func printTable(_ rows: [[String]]) {
        guard let columns = rows.first?.count else { return }
        let widths = (0..<columns).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == columns - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            print(cells.joined(separator: " "))
        }
    }
}

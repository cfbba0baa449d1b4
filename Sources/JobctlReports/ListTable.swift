import JobdConfig
package import JobdControl

/// `jobctl list`'s table, as text: a header, one row per job in aligned columns (the last one not
/// padded), the RESULT cells coloured when `colour` is on, then a count. Pure, so that the layout
/// is tested without a daemon.
///
/// Written into one byte buffer, each cell's width counted once (for an ASCII cell, its length):
/// at 10,000 jobs, joining and padding `String`s row by row took about a fifth of `jobctl list`
/// (issue 19).
package struct ListTable {
    static let header = ["NEXT", "LEFT", "LAST", "PASSED", "RESULT", "JOB", "TRIGGER"]
    /// The RESULT column.
    static let resultColumn = 4

    /// The whole output of `jobctl list` for `jobs` at `now`.
    package static func render(_ jobs: [JobStatus], now: Int64, colour: Bool) -> [UInt8] {
        // In a fleet, which node ran each RunOn=one-node job last.
        let fleet = jobs.contains { $0.lastNode != nil }
        let columns = header.count + (fleet ? 1 : 0)
        var cells = header + (fleet ? ["NODE"] : [])
        cells.reserveCapacity(columns * (jobs.count + 1))
        var wallClocks = WallClockCache()
        for job in jobs {
            cells.append(job.disabled == true ? "-" : wallClocks.format(job.nextElapseUSec))
            cells.append(job.disabled == true ? "disabled" : TimeFormat.relative(job.nextElapseUSec, now: now))
            cells.append(wallClocks.format(job.lastStartUSec))
            cells.append(TimeFormat.relative(job.lastStartUSec, now: now)
                + (job.lastStartCause.map { $0 == "timer" ? "" : " (\($0))" } ?? ""))
            // A run in flight is what an operator looks for first; the last result is in `status`.
            cells.append(job.disabledByErrors ? "bad-setting" : job.running > 0 ? "running" : job.lastResult ?? "-")
            cells.append(job.name)
            cells.append(job.errors?.first.map { $0.split(separator: "\n").first.map(String.init) ?? $0 } ?? job.triggers.joined(separator: " "))
            if fleet { cells.append(job.lastNode ?? "-") }
        }
        var widths = [Int](repeating: 0, count: columns)
        var cellWidths = [Int](repeating: 0, count: cells.count)
        for index in cells.indices {
            cellWidths[index] = width(of: cells[index])
            widths[index % columns] = max(widths[index % columns], cellWidths[index])
        }
        var text: [UInt8] = []
        text.reserveCapacity((widths.reduce(0, +) + columns + 16) * (jobs.count + 1) + 32)
        for index in cells.indices {
            let column = index % columns
            var cell = cells[index]
            if colour, column == resultColumn, index >= columns {
                cell = Color.painted(result: cell)
            }
            text.append(contentsOf: cell.utf8)
            if column == columns - 1 {
                text.append(UInt8(ascii: "\n"))
            } else {
                text.append(contentsOf: repeatElement(UInt8(ascii: " "), count: widths[column] - cellWidths[index] + 1))
            }
        }
        text.append(contentsOf: "\n\(jobs.count) job(s) listed.\n".utf8)
        return text
    }

    /// The columns a cell takes: its characters, as `String.count` counts them; for ASCII, its bytes.
    static func width(of cell: String) -> Int {
        let utf8 = cell.utf8
        return utf8.allSatisfy { $0 < 0x80 } ? utf8.count : cell.count
    }

    /// NEXT and LAST by the second: many jobs share a time (every job due at midnight), and
    /// formatting costs more than a look-up.
    struct WallClockCache {
        private var formatted: [Int64: String] = [:]

        mutating func format(_ usec: Int64?) -> String {
            guard let usec else { return TimeFormat.wallClock(nil) }
            let second = usec / 1_000_000  // as TimeFormat.wallClock rounds
            if let known = formatted[second] { return known }
            let text = TimeFormat.wallClock(usec)
            formatted[second] = text
            return text
        }
    }
}

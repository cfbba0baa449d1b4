import JobdConfig
package import JobdControl

/// `jobctl security`'s text, in `systemd-analyze security`'s layout: for one job, a row per check
/// (a ✓ or ✗ unless it does not apply, NAME, DESCRIPTION, EXPOSURE), sorted as systemd 252 sorts
/// them (by description, last first, then by name), and the overall exposure under it; for
/// several, one line each. Pure, so that the layout is tested without a daemon.
package enum SecurityTable {
    /// The table of one job's `checks` and its overall line.
    package static func details(name: String, exposureTenths: Int, checks: [SecurityCheck], colour: Bool) -> String {
        let sorted = checks.sorted { $0.description != $1.description ? $0.description > $1.description : $0.id < $1.id }
        var rows = [["", "NAME", "DESCRIPTION", "EXPOSURE"]]
        var marks: [String?] = [nil]
        for check in sorted {
            let mark: String? = switch check.badness {
            case nil: nil
            case 0: paint("✓", green, colour)
            default: paint("✗", red, colour)
            }
            marks.append(mark)
            rows.append([mark == nil ? "" : "✓", check.id, check.description, check.exposureTenths.map(SecurityExposure.text(tenths:)) ?? ""])
        }
        // The mark's cell is one column wide: painted after the widths are counted.
        var lines = align(rows, rightAligned: [3]) { row, column, cell in column == 0 ? marks[row] ?? cell : cell }
        let predicate = SecurityExposure.Predicate(exposureTenths: exposureTenths)
        lines.append("")
        lines.append("→ Overall exposure level for \(name): \(SecurityExposure.text(tenths: exposureTenths)) \(paint(predicate, colour: colour)) \(predicate.face)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The overview of `jobs` (name and exposure in tenths), sorted by name as systemd's is.
    package static func overview(_ jobs: [(name: String, exposureTenths: Int)], colour: Bool) -> String {
        var rows = [["JOB", "EXPOSURE", "PREDICATE", "HAPPY"]]
        var predicates: [SecurityExposure.Predicate?] = [nil]
        for job in jobs.sorted(by: { $0.name < $1.name }) {
            let predicate = SecurityExposure.Predicate(exposureTenths: job.exposureTenths)
            predicates.append(predicate)
            rows.append([job.name, SecurityExposure.text(tenths: job.exposureTenths), predicate.rawValue, predicate.face])
        }
        let lines = align(rows, rightAligned: [1]) { row, column, cell in
            guard column == 2, let predicate = predicates[row] else { return cell }
            return paint(predicate, colour: colour) + String(repeating: " ", count: cell.count - predicate.rawValue.count)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `rows` in columns one space apart, each as wide as its widest cell, trailing blanks cut;
    /// `paint` may colour a padded cell (row, column, cell), after the widths are counted.
    static func align(
        _ rows: [[String]], rightAligned: Set<Int>, paint: (Int, Int, String) -> String = { $2 }
    ) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) } }
        return rows.enumerated().map { index, row in
            var cells: [String] = []
            for (column, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                cells.append(rightAligned.contains(column) ? padding + cell : cell + padding)
            }
            while let last = cells.last, last.allSatisfy({ $0 == " " }) { cells.removeLast() }
            if let last = cells.indices.last, !rightAligned.contains(last) {
                while cells[last].hasSuffix(" ") { cells[last].removeLast() }
            }
            return cells.enumerated().map { paint(index, $0, $1) }.joined(separator: " ")
        }
    }

    private static let red = "\u{1B}[0;1;31m", green = "\u{1B}[0;1;32m", yellow = "\u{1B}[0;1;33m"

    private static func paint(_ text: String, _ code: String, _ colour: Bool) -> String {
        colour ? code + text + "\u{1B}[0m" : text
    }

    /// A predicate in systemd's colour for it: red when unsafe, yellow when exposed, green when OK or better.
    private static func paint(_ predicate: SecurityExposure.Predicate, colour: Bool = false) -> String {
        switch predicate {
        case .dangerous, .unsafe: paint(predicate.rawValue, red, colour)
        case .exposed: paint(predicate.rawValue, yellow, colour)
        case .medium: predicate.rawValue
        case .ok, .safe, .perfect: paint(predicate.rawValue, green, colour)
        }
    }
}

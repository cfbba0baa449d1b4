package import JobdControl

/// `jobctl plan`'s table and `jobctl reload --dry-run`'s report, from jobd's answer.
package enum ScheduleText {
    /// When an elapse may start: one time, or EARLIEST - LATEST when `RandomizedDelaySec=` spreads it
    /// (apart by less than a second reads as one time, as the times show seconds).
    static func when(_ elapse: SchedulePreview.Elapse) -> String {
        let earliest = TimeFormat.wallClock(elapse.earliestUSec)
        guard elapse.latestUSec - elapse.earliestUSec >= 1_000_000 else { return earliest }
        return earliest + " - " + TimeFormat.wallClock(elapse.latestUSec)
    }

    /// Why an elapse falls when it does, with the retries a failed run would get.
    static func why(_ elapse: SchedulePreview.Elapse) -> String {
        let reason = switch elapse.reason {
        case "catch-up": "catch-up (Persistent=: a slot missed while jobd was down, at once)"
        case "missed": "missed (a slot passed since the last trigger, at once)"
        case "disabled": "disabled (skipped when it comes; jobctl enable)"
        default: elapse.reason
        }
        return elapse.retries.map { reason + "; if it fails, " + $0 } ?? reason
    }

    /// The plan as a table: WHEN, JOB, TRIGGER, WHY, a line an elapse in time order.
    package static func plan(_ elapses: [SchedulePreview.Elapse]) -> String {
        guard !elapses.isEmpty else { return "No job falls due in this window.\n" }
        let rows = [["WHEN", "JOB", "TRIGGER", "WHY"]] + elapses.map { [when($0), TerminalText.escaped($0.job), $0.trigger, why($0)] }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = ""
        for row in rows {
            for column in 0..<3 { text += row[column] + String(repeating: " ", count: widths[column] - row[column].count + 2) }
            text += row[3] + "\n"
        }
        return text + "\n\(elapses.count) elapse(s).\n"
    }

    /// What a reload would do, a line a job it adds, changes or removes, then those that would run
    /// at once and why, then a summary.
    package static func reloadPreview(_ preview: SchedulePreview) -> String {
        func next(_ elapse: SchedulePreview.Elapse?) -> String {
            elapse.map { "\(when($0)) (\($0.trigger))" } ?? "none"
        }
        var text = ""
        for change in preview.changes {
            let job = TerminalText.escaped(change.job)
            switch change.kind {
            case "added": text += "added    \(job): next \(next(change.after))\n"
            case "removed": text += "removed  \(job): was next \(next(change.before))\n"
            default:
                text += "changed  \(job) (\(change.keys.joined(separator: ", "))): next \(next(change.after)), was \(next(change.before))\n"
            }
        }
        for change in preview.changes {
            guard let after = change.after, after.reason == "catch-up" || after.reason == "missed" else { continue }
            text += "runs at once: \(TerminalText.escaped(change.job)): \(why(after))\n"
        }
        let count = { (kind: String) in preview.changes.filter { $0.kind == kind }.count }
        return text + "dry run: \(count("added")) added, \(count("changed")) changed, \(count("removed")) removed, "
            + "\(preview.kept) kept; nothing was applied\n"
    }
}

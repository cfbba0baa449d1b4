package import JobdCalendar

/// What `systemd-analyze calendar [--iterations N] [--base-time T] EXPR...` prints, computed
/// without running it: for the `jobctl calendar` command.
///
/// ```swift
/// let report = CalendarReport.render(["Mon..Fri 02:30"], now: now, zone: .current(), iterations: 3)
/// print(report.output, terminator: "")
/// for line in report.errors { printToStandardError(line) }
/// exit(report.allValid ? 0 : 1)
/// ```
package struct CalendarReport: Sendable, Hashable {
    /// The text for standard output, line for line as `systemd-analyze calendar` prints it: one
    /// block per valid expression, blocks separated by an empty line (an invalid expression
    /// leaves its block empty, as systemd does).
    package var output: String
    /// One line per invalid expression, for standard error, naming the expression and the problem.
    package var errors: [String]
    /// Whether every expression parsed; a command should exit non-zero otherwise.
    package var allValid: Bool { errors.isEmpty }

    /// Renders the report.
    ///
    /// - Parameters:
    ///   - expressions: the expressions, in order.
    ///   - now: the current time, for "From now:" (and the base time when `baseTime` is `nil`).
    ///   - baseTime: the instant the first elapse is computed after (`--base-time`).
    ///   - zone: the local zone (systemd-analyze's `TZ`). Timestamps are shown in it, with an
    ///     "(in UTC):" line unless it is UTC.
    ///   - iterations: how many elapses to show (`--iterations`), at least 1.
    ///   - cron: read the expressions as cron schedules (``CronSpec``) instead of calendar events.
    package static func render(
        _ expressions: [String], now: RealtimeInstant, baseTime: RealtimeInstant? = nil,
        zone: TimeZoneRules, iterations: Int = 1, cron: Bool = false
    ) -> CalendarReport {
        var output = ""
        var errors: [String] = []
        for (index, expression) in expressions.enumerated() {
            switch block(
                for: expression, now: now, base: baseTime ?? now, zone: zone, iterations: max(iterations, 1), cron: cron)
            {
            case .block(let text): output += text
            case .failure(let error): errors.append(error)
            }
            if index < expressions.count - 1 {
                output += "\n"
            }
        }
        return CalendarReport(output: output, errors: errors)
    }

    private enum BlockOutcome {
        case block(String)
        case failure(String)
    }

    private static let labelWidth = "Normalized form:".count

    private static func block(
        for expression: String, now: RealtimeInstant, base: RealtimeInstant, zone: TimeZoneRules,
        iterations: Int, cron: Bool
    ) -> BlockOutcome {
        let normalized: String
        let next: (RealtimeInstant) -> CalendarSpec.ElapseOutcome
        if cron {
            do {
                let spec = try CronSpec.parse(expression)
                normalized = spec.normalized
                next = { spec.nextElapse(after: $0, in: zone).map { .elapse($0) } ?? .never }
            } catch {
                return .failure("Failed to parse cron expression '\(expression)': \(error.expected)" + column(error))
            }
        } else {
            do {
                let spec = try CalendarSpec.parse(expression, localZone: zone)
                normalized = spec.normalized
                next = { spec.elapse(after: $0, in: zone) }
            } catch {
                return .failure(
                    "Failed to parse calendar specification '\(expression)': expected \(error.expected)" + column(error))
            }
        }
        var rows: [(String, String)] = []
        if normalized != expression {
            rows.append(("Original form:", expression))
        }
        rows.append(("Normalized form:", normalized))
        var reference = base
        iterating: for iteration in 1...iterations {
            switch next(reference) {
            case .elapse(let elapse):
                let label = iteration == 1 ? "Next elapse:" : "Iter. #\(iteration):"
                rows.append((label, TimestampFormat.timestamp(elapse, in: zone)))
                if !zone.isUniversal {
                    rows.append(("(in UTC):", TimestampFormat.utcTimestamp(elapse)))
                }
                rows.append(("From now:", TimestampFormat.relative(elapse, now: now)))
                reference = elapse
            case .never:
                if iteration == 1 {
                    rows.append(("Next elapse:", "never"))
                }
                break iterating
            case .failed:
                // systemd prints nothing for the expression and reports the error.
                return .failure("Failed to determine next elapse for '\(expression)': the search gave up")
            }
        }
        var text = ""
        for (label, value) in rows {
            text += String(repeating: " ", count: max(labelWidth - label.count, 0)) + label + " " + value + "\n"
        }
        return .block(text)
    }

    private static func column(_ error: CalendarError) -> String {
        error.column.map { " at column \($0)" } ?? ""
    }
}

package import ArgumentParser
import Glibc
import JobdCalendar
import JobctlReports

extension Jobctl {
    /// `jobctl calendar`: what `systemd-analyze calendar` prints, line for line, for jobd's
    /// `OnCalendar=`, and with `--cron` the same for `Cron=`.
    package struct Calendar: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "calendar",
            abstract: "Normalize calendar expressions and show when they elapse next.",
            discussion: """
                Prints what systemd-analyze calendar prints (Original form, Normalized form, Next \
                elapse, From now, Iter. #N), in the time zone TZ names. With --cron, the expressions \
                are cron lines as Cron= takes them. Exits 0 when every expression is valid, 1 if any is not.
                """)

        @Flag(help: "Read the expressions as cron lines (Cron=), not calendar events (OnCalendar=).")
        var cron = false

        @Option(help: "Show this many elapses of each expression.")
        var iterations = 1

        @Option(name: .customLong("base-time"),
                help: "Compute elapses from this time instead of now: '2026-01-01 00:00:00 UTC', '@1767225600', 'tomorrow'…")
        var baseTime: String?

        @Argument(help: "The expressions.")
        var expressions: [String]

        package init() {}

        package func run() throws {
            let zone = TimeZoneRules.current()
            let nowInstant = RealtimeInstant.now()
            var standardError = StandardError()
            var base: RealtimeInstant?
            if let baseTime {
                do {
                    base = try BaseTime.parse(baseTime, now: nowInstant, zone: zone)
                } catch {
                    print("jobctl: invalid --base-time '\(baseTime)': \(error)", to: &standardError)
                    throw ExitCode(1)
                }
            }
            let report = CalendarReport.render(
                expressions, now: nowInstant, baseTime: base, zone: zone, iterations: iterations, cron: cron)
            print(report.output, terminator: "")
            for error in report.errors { print(error, to: &standardError) }
            if !report.allValid { throw ExitCode(1) }
        }
    }
}

import Foundation
import Glibc

/// What a benchmark run prints: each figure as it is measured, each comparison's ratio from the
/// same run, and every target as PASS or MISS; at the end a Markdown table of the targets.
final class Report {
    struct TargetCheck {
        var part: String
        var target: String
        var measured: String
        var passed: Bool
    }

    private(set) var checks: [TargetCheck] = []
    private var part = ""

    /// Starts a section; targets after it are listed under `part` (by default the title).
    func section(_ title: String, part: String? = nil) {
        self.part = part ?? title
        emit("\n== \(title)")
    }

    func note(_ text: String) {
        emit("   \(text)")
    }

    func figure(_ name: String, _ value: String) {
        emit("   \(name.padding(toLength: 46, withPad: " ", startingAt: 0)) \(value)")
    }

    /// Prints a line and flushes it, so a long run shows each figure as it is measured.
    private func emit(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// `ours` against `theirs`, where smaller is better: prints "N× less/faster" as measured.
    func ratio(_ name: String, ours: Double, theirs: Double) {
        guard ours > 0, theirs > 0 else { return figure("ratio: \(name)", "n/a") }
        let value = theirs / ours
        figure("ratio: \(name)", value >= 1 ? String(format: "%.1f× better", value) : String(format: "%.2f× (worse)", value))
    }

    /// A target: `passed` decides PASS or MISS; `measured` is the figure it was judged on.
    func target(_ target: String, measured: String, passed: Bool) {
        checks.append(TargetCheck(part: part, target: target, measured: measured, passed: passed))
        emit("   \(passed ? "PASS" : "MISS")  \(target): \(measured)")
    }

    /// The targets as a Markdown table, for the README's Performance section.
    func printSummary() {
        guard !checks.isEmpty else { return }
        print("\n== Targets")
        print("| part | target | measured | |")
        print("|---|---|---|---|")
        for check in checks {
            print("| \(check.part) | \(check.target) | \(check.measured) | \(check.passed ? "PASS" : "MISS") |")
        }
    }
}

/// Figures formatted the same way everywhere.
enum Format {
    static func duration(nanoseconds: Double) -> String {
        switch abs(nanoseconds) {
        case ..<10_000: String(format: "%.2f µs", nanoseconds / 1_000)
        case ..<10_000_000: String(format: "%.3f ms", nanoseconds / 1_000_000)
        case ..<10_000_000_000: String(format: "%.1f ms", nanoseconds / 1_000_000)
        default: String(format: "%.2f s", nanoseconds / 1_000_000_000)
        }
    }

    static func bytes(_ bytes: Double) -> String {
        switch abs(bytes) {
        case ..<10_000: String(format: "%.0f B", bytes)
        case ..<10_000_000: String(format: "%.1f KiB", bytes / 1_024)
        default: String(format: "%.1f MiB", bytes / 1_048_576)
        }
    }

    static func rate(_ perSecond: Double) -> String {
        perSecond >= 100_000 ? String(format: "%.2f M/s", perSecond / 1_000_000) : String(format: "%.0f /s", perSecond)
    }
}

import Foundation
import JobdTestKit
import JobdTimers

/// The soak run of issue 7: `reloads` reloads alternating between two configurations of 1,000 jobs
/// while jobs fire, under a private journald (`scripts/with-journald`, which needs root); then
/// `jobctl audit` on that journal must find no leak and every retired owner released, and jobd's
/// RSS after the last reload must be within 2 MB of its RSS after the 10th.
struct SoakRun {
    var reloads: Int

    func run(_ report: Report) throws {
        report.section("Soak: \(reloads) reloads alternating between two configurations of 1,000 jobs", part: "soak")
        let work = NSTemporaryDirectory() + "jobd-bench-soak-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let configuration = SoakConfiguration(directory: work)
        try configuration.write()
        report.note("80% of the jobs the same in both, 15% changed, 5% renamed; 1 job in 20 runs /bin/true about every second")
        report.note("each reload: switch config/jobs.d, then `jobctl reload --pid PID` waits for its outcome")
        report.note("the reloads begin after 3 s of jobd running its jobs: its first runs' code and one-time allocations are start-up")

        let started = MonotonicInstant.now()
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let driver = try CapturedProcess.run(
            DaemonProcess.packageRoot() + "/scripts/with-journald",
            [work + "/journal", "--", me, "--soak-driver", work, "--reloads", String(reloads)])
        let figures = Self.figures(driver.standardOutput)
        let driven = MonotonicInstant.now()
        guard driver.status == 0, let rssAfterTenth = figures["rssAfterTenth"], let rssAfterLast = figures["rssAfterLast"] else {
            report.note("the soak driver failed (status \(driver.status)):\n\(driver.standardOutput)\(driver.standardError)")
            report.target("soak completed", measured: "driver exit \(driver.status)", passed: false)
            return
        }
        let audit = try CapturedProcess.run(LaunchedDaemon.product("jobctl"), ["audit", "--directory", work + "/journal", "--json"])
        let audited = MonotonicInstant.now()
        let summary = AuditSummary(json: audit.standardOutput)

        report.figure("reloads (failed)", "\(reloads) (\(figures["failedReloads"] ?? -1))")
        report.figure("reload via jobctl, median / p99 / max", [figures["reloadMedianNanoseconds"], figures["reloadP99Nanoseconds"], figures["reloadMaxNanoseconds"]]
            .map { Format.duration(nanoseconds: Double($0 ?? 0)) }.joined(separator: " / "))
        report.figure("VmRSS after the 10th reload", Format.bytes(Double(rssAfterTenth)))
        report.figure("VmRSS after the last reload", Format.bytes(Double(rssAfterLast)))
        report.figure("VmHWM", Format.bytes(Double(figures["peakRSS"] ?? 0)))
        report.figure("RssAnon / RssFile after the 10th", [figures["anonymousAfterTenth"], figures["fileAfterTenth"]]
            .map { Format.bytes(Double($0 ?? 0)) }.joined(separator: " / "))
        report.figure("RssAnon / RssFile after the last", [figures["anonymousAfterLast"], figures["fileAfterLast"]]
            .map { Format.bytes(Double($0 ?? 0)) }.joined(separator: " / "))
        let trend = stride(from: 100, through: reloads, by: 100).compactMap { reload in
            figures["rssAtReload\(reload)"].map { "\(reload): \(String(format: "%.1f", Double($0) / 1_048_576))" }
        }
        if !trend.isEmpty { report.figure("VmRSS (MiB) every 100 reloads", trend.joined(separator: ", ")) }
        report.figure("jobd exit status after SIGTERM", "\(figures["exitStatus"] ?? -1)")
        report.figure("time: reloads and stop, under journald", Format.duration(nanoseconds: Double(driven.duration(since: started).nanosecondsSaturated)))
        report.figure("time: jobctl audit", Format.duration(nanoseconds: Double(audited.duration(since: driven).nanosecondsSaturated)))
        report.figure("jobctl audit exit status", "\(audit.status)")
        for line in summary.lines { report.figure("audit: " + line.0, line.1) }

        let growth = rssAfterLast - rssAfterTenth
        report.target("jobctl audit finds no leak (exit 0, verdict clean)", measured: "exit \(audit.status), \(summary.verdict)",
                      passed: audit.status == 0 && summary.verdict == "clean")
        report.target("every retired owner released", measured: "\(summary.released) of \(summary.created) released, \(summary.leaked) leaked, \(summary.pending) pending",
                      passed: summary.created > 0 && summary.released == summary.created && summary.leaked == 0 && summary.pending == 0)
        report.target("RSS after the last reload within 2 MB of after the 10th", measured: "\(growth >= 0 ? "+" : "")\(Format.bytes(Double(growth)))",
                      passed: abs(growth) <= 2 * 1_048_576)
        report.target("issue 19: RSS after the last reload within 1 MiB of after the 10th", measured: "\(growth >= 0 ? "+" : "")\(Format.bytes(Double(growth)))",
                      passed: abs(growth) <= 1_048_576)
        report.target("every reload accepted, jobd exits 0", measured: "\(figures["failedReloads"] ?? -1) failed, exit \(figures["exitStatus"] ?? -1)",
                      passed: figures["failedReloads"] == 0 && figures["exitStatus"] == 0)
    }

    /// The driver's `soak.KEY VALUE` lines.
    private static func figures(_ output: String) -> [String: Int] {
        var figures: [String: Int] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("soak.") {
            let parts = line.dropFirst(5).split(separator: " ", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { figures[String(parts[0])] = value }
        }
        return figures
    }
}

import Foundation
import JobdTestKit
import Testing

/// `MetricsFile=`: what jobd writes parses with a real Prometheus text parser (the Python client's,
/// from Debian) and its values match the runs.
@Suite(.serialized) struct MetricsFileTests {
    /// The samples of `file`, parsed by prometheus_client: "name{label=value,…}" → value.
    static func samples(of file: String) throws -> [String: Double] {
        try PrometheusSamples.parse(String(contentsOfFile: file, encoding: .utf8))
    }

    @Test func theMetricsFileParsesAndMatchesTheRuns() throws {
        let launched = Date().timeIntervalSince1970
        let jobd = try FailureHandlingTests.Daemon(jobs: [
            "good": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n",
            "bad": "[Job]\nOnStartupSec=1h\nExecStart=/bin/sh -c 'exit 3'\n",
        ])
        let metrics = jobd.config.path + "/jobd.prom"
        try "[Daemon]\nMetricsFile=\(metrics)\n".write(toFile: jobd.config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        let (reloaded, reloadOutput) = try jobd.jobctl(["reload"])
        #expect(reloaded == 0, "\(reloadOutput)")
        let before = Date().timeIntervalSince1970
        #expect(try jobd.jobctl(["run", "good", "--wait"]).0 == 0)
        #expect(try jobd.jobctl(["run", "bad", "--wait"]).0 == 3)
        #expect(try jobd.jobctl(["run", "bad", "--wait"]).0 == 3)
        // jobd writes the file at most once a second while it runs, and at its stop: stop it.
        jobd.process.signal(SIGTERM)
        #expect(try jobd.process.waitForExit() == 0)
        let samples = try Self.samples(of: metrics)
        #expect(samples["jobd_job_runs_total{job=bad,result=exit-code}"] == 2, "\(samples)")
        #expect(samples["jobd_job_runs_total{job=good,result=success}"] == 1)
        #expect(samples["jobd_job_last_exit_status{job=bad}"] == 3 && samples["jobd_job_last_failed{job=bad}"] == 1)
        #expect(samples["jobd_job_last_failed{job=good}"] == 0)
        let success = try #require(samples["jobd_job_last_success_timestamp_seconds{job=good}"])
        #expect(success >= before - 1 && success <= Date().timeIntervalSince1970 + 1)
        #expect(samples["jobd_job_last_success_timestamp_seconds{job=bad}"] == nil, "bad never succeeded")
        #expect(samples["jobd_job_running{job=good}"] == 0)
        #expect(samples["jobd_reloads_total{outcome=applied}"] == 1 && samples["jobd_reloads_total{outcome=rejected}"] == 0)
        #expect(samples["jobd_reloads_total{outcome=partial}"] == 0)
        #expect(samples["jobd_up{}"] == 1)
        let started = try #require(samples["jobd_start_time_seconds{}"])
        #expect(started >= launched - 1 && started <= before, "jobd started after the test launched it, before its first run")
        #expect(samples.keys.contains { $0.hasPrefix("jobd_build_info{commit=") && $0.contains("version=0.1.0") }, "\(samples.keys)")
        #expect(samples["jobd_generation{}"] == 2 && samples["jobd_owners_leaked{}"] == 0)
        let permissions = try FileManager.default.attributesOfItem(atPath: metrics)[.posixPermissions] as? Int
        #expect(permissions == 0o644, "readable by a collector that is not root")
    }

    /// With nothing happening the file is still written again (once a minute; shortened here by
    /// JOBD_FAULT_METRICS_REWRITE_SECONDS), so that its age says whether jobd is alive; a reload
    /// that applies its valid changes beside a broken file counts as `partial`, and each broken file
    /// has a series of its own; the file's order is the same at every write.
    @Test func theFileIsRewrittenWhileNothingHappensAndNamesBrokenFiles() throws {
        let config = try TemporaryConfiguration(jobs: ["idle": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n"])
        let metrics = config.path + "/jobd.prom"
        try "[Daemon]\nMetricsFile=\(metrics)\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        let runtime = config.path + "/run"
        let daemon = try DaemonProcess(
            arguments: ["--config-dir", config.path, "--runtime-dir", runtime],
            environment: ProcessInfo.processInfo.environment.merging(["JOBD_FAULT_METRICS_REWRITE_SECONDS": "0.5"]) { $1 })
        try daemon.waitForEvent("daemon.ready")
        try config.write(job: "broken", "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\nOnCalender=daily\n")
        let reload = try DaemonProcess(product: "jobctl", arguments: ["reload", "--runtime-dir", runtime])
        #expect(try reload.waitForExit() == 1)

        /// The file's inode: every write renames a new file over the old one.
        func inode() -> UInt64? { (try? FileManager.default.attributesOfItem(atPath: metrics)[.systemFileNumber] as? UInt64) ?? nil }
        func waitForRewrite(of previous: UInt64?) throws -> String {
            try waitUntil(timeout: .seconds(60), "the metrics file written again with nothing happening") {
                let current = inode()
                return current != previous && current != nil
            }
            return try String(contentsOfFile: metrics, encoding: .utf8)
        }
        // Two writes after the reload's, with nothing else happening: the same series in the same
        // order (a next elapse's value may move by a microsecond: it is read off two clocks).
        func series(_ text: String) -> [Substring] {
            text.split(separator: "\n").map { line in line.hasPrefix("#") ? line : line[..<(line.lastIndex(of: " ") ?? line.endIndex)] }
        }
        let first = try waitForRewrite(of: inode())
        let second = try waitForRewrite(of: inode())
        #expect(series(first) == series(second))
        #expect(series(first).count > 10)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let samples = try Self.samples(of: metrics)
        #expect(samples["jobd_broken_file{file=\(config.path)/jobs.d/broken.job}"] == 1, "\(samples.keys.sorted())")
        #expect(samples["jobd_broken_files{}"] == 1)
        #expect(samples["jobd_reloads_total{outcome=partial}"] == 1 && samples["jobd_reloads_total{outcome=applied}"] == 0)
        let families = first.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
        #expect(families == families.sorted(), "families in name order")
    }
}

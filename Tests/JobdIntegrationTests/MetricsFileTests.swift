import Foundation
import JobdTestKit
import Testing

/// `MetricsFile=`: what jobd writes parses with a real Prometheus text parser (the Python client's,
/// from Debian) and its values match the runs.
@Suite(.serialized) struct MetricsFileTests {
    /// The samples of `file`, parsed by prometheus_client: "name{label=value,…}" → value.
    static func samples(of file: String) throws -> [String: Double] {
        let parser = Process()
        parser.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        parser.arguments = ["-c", """
            import sys
            from prometheus_client.parser import text_string_to_metric_families
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                for s in family.samples:
                    labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
                    print(f"{s.name}{{{labels}}} {s.value!r}")
            """, file]
        let output = Pipe()
        parser.standardOutput = output
        try parser.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        parser.waitUntilExit()
        try #require(parser.terminationStatus == 0, "prometheus_client could not parse \(file)")
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    @Test func theMetricsFileParsesAndMatchesTheRuns() throws {
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
        #expect(samples["jobd_reloads_total{outcome=accepted}"] == 1 && samples["jobd_reloads_total{outcome=rejected}"] == 0)
        #expect(samples["jobd_generation{}"] == 2 && samples["jobd_owners_leaked{}"] == 0)
        let permissions = try FileManager.default.attributesOfItem(atPath: metrics)[.posixPermissions] as? Int
        #expect(permissions == 0o644, "readable by a collector that is not root")
    }
}

import Foundation
import JobdTestKit
import Testing

/// A restart (every package upgrade restarts jobd) forgets no failure: `list --failed`, `status`'s
/// exit 3 and the metrics say after it what they said before it.
@Suite(.serialized) struct HistoryRestartTests {
    /// jobd on `config`, with its own runtime and the given state directory.
    static func start(_ config: TemporaryConfiguration, state: String) throws -> DaemonProcess {
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", config.path + "/run", "--state-dir", state])
        try daemon.waitForEvent("daemon.ready")
        return daemon
    }

    static func jobctl(_ config: TemporaryConfiguration, _ arguments: [String]) throws -> (Int32, String) {
        try Jobctl(runtime: config.path + "/run")(arguments)
    }

    /// What a user checks, with the daemon's own instance-dependent parts (pids, LEFT) left out.
    static func look(_ config: TemporaryConfiguration) throws -> [String] {
        let (failedStatus, failed) = try jobctl(config, ["list", "--failed", "--json"])
        let (statusExit, _) = try jobctl(config, ["status", "backup"])
        let (goodExit, _) = try jobctl(config, ["status", "good"])
        let jobs = try JSONSerialization.jsonObject(with: Data(failed.utf8)) as? [[String: Any]] ?? []
        let keys = ["name", "lastResult", "lastExitStatus", "lastDurationUSec", "lastRunID", "lastStartUSec", "lastFinishUSec", "lastStartCause"]
        return ["list --failed exit \(failedStatus)", "status backup exit \(statusExit)", "status good exit \(goodExit)"]
            + jobs.map { job in keys.map { "\($0)=\(job[$0].map { "\($0)" } ?? "-")" }.joined(separator: " ") }
    }

    @Test func aFailureIsStillAFailureAfterARestart() throws {
        let config = try TemporaryConfiguration(jobs: [
            "backup": "[Job]\nOnStartupSec=1h\nExecStart=/bin/sh -c 'exit 3'\n",
            "good": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n",
            "gone": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n",
        ])
        let metrics = config.path + "/jobd.prom"
        try "[Daemon]\nMetricsFile=\(metrics)\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        let state = config.path + "/state"
        let before = try Self.start(config, state: state)
        #expect(try Self.jobctl(config, ["run", "backup", "--wait"]).0 == 3)
        #expect(try Self.jobctl(config, ["run", "good", "--wait"]).0 == 0)
        #expect(try Self.jobctl(config, ["run", "gone", "--wait"]).0 == 0)
        let seen = try Self.look(config)
        #expect(seen.contains("list --failed exit 3") && seen.contains("status backup exit 3") && seen.contains { $0.hasPrefix("name=backup lastResult=exit-code lastExitStatus=3") }, "\(seen)")
        before.signal(SIGTERM)
        #expect(try before.waitForExit() == 0)
        let samplesBefore = try MetricsFileTests.samples(of: metrics)

        // gone's file goes while jobd is down: its history goes with it at the next start.
        try config.remove(job: "gone")
        let after = try Self.start(config, state: state)
        let seenAfter = try Self.look(config)
        #expect(seenAfter == seen, "\(seenAfter)\n\(seen)")
        #expect(!FileManager.default.fileExists(atPath: state + "/history/gone"))
        #expect(FileManager.default.fileExists(atPath: state + "/history/backup"))
        after.signal(SIGTERM)
        #expect(try after.waitForExit() == 0)
        let samplesAfter = try MetricsFileTests.samples(of: metrics)
        for series in ["jobd_job_last_failed{job=backup}", "jobd_job_last_exit_status{job=backup}", "jobd_job_last_duration_seconds{job=backup}",
                       "jobd_job_last_success_timestamp_seconds{job=good}", "jobd_job_last_start_timestamp_seconds{job=backup}"] {
            #expect(samplesAfter[series] != nil && samplesAfter[series] == samplesBefore[series], "\(series)")
        }
        #expect(samplesAfter["jobd_job_last_failed{job=backup}"] == 1)
    }

    /// Issue 36: a run that jobd's stop ends is recorded, and its job's earlier history stays.
    @Test func aRunStoppedByJobdsStopIsRecordedAndTheHistoryKept() throws {
        let config = try TemporaryConfiguration(jobs: [
            "slow": "[Job]\nOnStartupSec=1h\nExecStart=/bin/sleep 600\n",
        ])
        let state = config.path + "/state"
        let before = try Self.start(config, state: state)
        #expect(try Self.jobctl(config, ["run", "slow"]).0 == 0)
        try before.waitForEvent("run.start", fields: ["JOB": "slow"])
        before.signal(SIGTERM)
        #expect(try before.waitForExit() == 0)
        let after = try Self.start(config, state: state)
        let (_, status) = try Self.jobctl(config, ["status", "slow"])
        #expect(status.contains("stopped"), "\(status)")
        #expect(!status.contains("Last run: n/a"), "\(status)")
        after.signal(SIGTERM)
        #expect(try after.waitForExit() == 0)
    }

    /// Issue 36: a jobd killed with a run in flight loses it not: the next one adopts the run, whose
    /// process lives on, and follows it to its end; with no jobd-keeper to keep how it ended (jobd
    /// started on its own, as here), that end is recorded abandoned (journal, status) and starts the
    /// job's OnFailure= job.
    @Test func aRunOfAKilledJobdIsRecordedAbandonedByTheNext() throws {
        let config = try TemporaryConfiguration(jobs: [
            "slow": "[Job]\nOnStartupSec=1h\nOnFailure=alert\nExecStart=/bin/sleep 600\n",
            "alert": "[Job]\nExecStart=/bin/echo alerted\n",
        ])
        let state = config.path + "/state"
        let before = try Self.start(config, state: state)
        #expect(try Self.jobctl(config, ["run", "slow"]).0 == 0)
        let started = try before.waitForEvent("run.start", fields: ["JOB": "slow"])
        let words = before.lines[started].split(separator: " ")
        let runID = try #require(words.first { $0.hasPrefix("JOBD_RUN_ID=") }?.dropFirst(12))
        let pid = try #require(words.first { $0.hasPrefix("JOBD_PID=") }.flatMap { Int32($0.dropFirst(9)) })
        // Without a cgroup the run outlives the killed jobd in its process group: the test ends it.
        defer { kill(-pid, SIGKILL) }
        // The record reaches the runtime directory off the main loop: wait for it, as a crash might come any time later.
        let runs = config.path + "/run/runs"
        try waitUntil(timeout: .seconds(30), "the run kept in runs/ with its process") {
            ((try? String(contentsOfFile: runs + "/\(runID)", encoding: .utf8)) ?? "").contains("pid=\(pid)")
        }
        before.signal(SIGKILL)
        _ = try before.waitForExit()
        let after = try Self.start(config, state: state)
        try after.waitForEvent("run.adopt", fields: ["JOB": "slow", "JOBD_RUN_ID": String(runID), "JOBD_PID": String(pid)])
        kill(-pid, SIGKILL)
        try after.waitForEvent("run.exit", fields: ["JOB": "slow", "JOBD_RUN_ID": String(runID), "JOBD_RESULT": "abandoned"])
        try after.waitForEvent("run.exit", fields: ["JOB": "alert", "JOBD_RESULT": "success"])
        let (exit, status) = try Self.jobctl(config, ["status", "slow"])
        #expect(exit == 3 && status.contains("abandoned"), "\(status)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: runs)) == [], "recorded once, then forgotten")
        after.signal(SIGTERM)
        #expect(try after.waitForExit() == 0)
    }

    /// A jobd before this one kept its runs in flight in the state directory: after an upgrade the
    /// next jobd reads them there once, moves them to the runtime directory, and records each as
    /// any run left behind (here one whose process is gone: abandoned).
    @Test func runsAnEarlierJobdKeptInTheStateDirectoryAreReadAfterAnUpgrade() throws {
        let config = try TemporaryConfiguration(jobs: ["slow": "[Job]\nOnStartupSec=1h\nExecStart=/bin/sleep 600\n"])
        let state = config.path + "/state"
        try FileManager.default.createDirectory(atPath: state + "/runs", withIntermediateDirectories: true)
        chmod(state, 0o755)
        let runID = "0123456789abcdef0123456789abcdef"
        try "job=slow\ncause=manual\nstart=1700000000000000\n".write(toFile: state + "/runs/" + runID, atomically: true, encoding: .utf8)
        let daemon = try Self.start(config, state: state)
        try daemon.waitForEvent("run.abandoned", fields: ["JOB": "slow", "JOBD_RUN_ID": runID, "JOBD_RESULT": "abandoned"])
        #expect(!FileManager.default.fileExists(atPath: state + "/runs"), "the old directory is gone")
        // The record goes off the main loop, after the entry: wait for it.
        try waitUntil(timeout: .seconds(30), "the record recorded once, then forgotten") {
            (try? FileManager.default.contentsOfDirectory(atPath: config.path + "/run/runs")) == []
        }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// A reload that removes a job removes what was kept of it.
    @Test func aReloadThatRemovesAJobForgetsItsHistory() throws {
        let config = try TemporaryConfiguration(jobs: ["once": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n"])
        let state = config.path + "/state"
        let daemon = try Self.start(config, state: state)
        #expect(try Self.jobctl(config, ["run", "once", "--wait"]).0 == 0)
        try config.remove(job: "once")
        #expect(try Self.jobctl(config, ["reload"]).0 == 0)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: state + "/history")) ?? []
        #expect(kept.isEmpty, "\(kept)")
    }
}

import Foundation
import JobdTestKit
import Testing

/// Failures never spread and never go unnoticed: broken files disable their own job only, every
/// run has a result, failed runs are retried, and `OnFailure=`/`OnSuccess=` jobs hear of outcomes.
/// Real jobd and jobctl processes, real commands.
@Suite(.serialized) struct FailureHandlingTests {
    static let tick = "[Job]\nOnStartupSec=0\nOnUnitActiveSec=300ms\nExecStart=/bin/echo tick\n"

    /// jobd with a notify socket the test owns, and a runtime directory for jobctl.
    final class Daemon {
        let config: TemporaryConfiguration
        let notify: NotifyListener
        let runtime: String
        let process: DaemonProcess

        init(jobs: [String: String]) throws {
            config = try TemporaryConfiguration(jobs: jobs)
            notify = try NotifyListener()
            runtime = config.path + "/run"
            process = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime],
                                        environment: notify.daemonEnvironment())
            // jobctl needs the socket, which is there once jobd is ready.
            try process.waitForEvent("daemon.ready")
        }

        func jobctl(_ arguments: [String]) throws -> (Int32, String) {
            try Jobctl(runtime: runtime, daemon: process)(arguments)
        }

        deinit {
            process.signal(SIGTERM)
            _ = try? process.waitForExit()
        }
    }

    @Test func aBrokenFileAndAMissingUserDisableOnlyTheirJobs() throws {
        let jobd = try Daemon(jobs: [
            "good": Self.tick,
            "broken": "[Job]\nOnStartupSec=0\nExecStart=/bin/true\nOnCalender=daily\n",
            "ghost": "[Job]\nOnStartupSec=0\nExecStart=/bin/true\nUser=jobd-test-no-such-user\n",
        ])
        let ready = try jobd.notify.waitForMessage("READY=1") { $0.assignments["READY"] == "1" }
        let status = try #require(jobd.notify.messages[ready].assignments["STATUS"])
        #expect(status.hasPrefix("1 job(s), "), "\(status)")
        #expect(status.contains("2 broken file(s): broken.job, ghost.job"), "\(status)")
        let errors = jobd.process.events("config.error")
        #expect(errors.contains { $0.field("CONFIG_FILE")?.hasSuffix("/jobs.d/broken.job") == true && $0.field("CONFIG_LINE") == "4" })
        #expect(errors.contains { $0.field("CONFIG_FILE")?.hasSuffix("/jobs.d/ghost.job") == true && $0.field("CONFIG_LINE") == "4" })
        try jobd.process.waitForEvent("run.exit", fields: ["JOB": "good", "JOBD_RESULT": "success"])

        let (listed, list) = try jobd.jobctl(["list", "--failed"])
        #expect(listed == 3, "it lists failures: exit 3, as status")
        let rows = list.split(separator: "\n").filter { $0.contains("bad-setting") }
        #expect(rows.count == 2 && rows.contains { $0.contains("broken") && $0.contains("unknown key 'OnCalender='") })
        #expect(!list.contains("good"), "a job that succeeded is not listed as failed")
        let (brokenStatus, brokenText) = try jobd.jobctl(["status", "ghost"])
        #expect(brokenStatus == 0 && brokenText.contains("the job is not loaded") && brokenText.contains("jobd-test-no-such-user"))
    }

    @Test func aReloadAppliesTheValidChangeAndKeepsTheBrokenJobsOldDefinition() throws {
        let job = { (word: String) in "[Job]\nOnStartupSec=0\nOnUnitActiveSec=200ms\nExecStart=/bin/echo \(word)\n" }
        let jobd = try Daemon(jobs: ["a": job("old-a"), "b": job("old-b")])
        try jobd.process.waitForEvent("run.exit", fields: ["JOB": "b"])
        try jobd.config.write(job: "b", job("new-b"))
        try jobd.config.write(job: "a", job("new-a") + "Overlap=sometimes\n")
        let (reloaded, output) = try jobd.jobctl(["reload"])
        #expect(reloaded == 1, "a reload with a broken file fails, so systemctl reload fails: \(output)")
        #expect(output.contains("jobs.d/a.job:5: error: Overlap=: 'sometimes' is not an overlap policy"))
        #expect(output.contains("1 changed (b)") && output.contains("reload incomplete: 1 error(s)"))
        let failed = try jobd.process.waitForEvent("reload.failed")
        try jobd.process.waitForLine(from: failed, "new-b") { $0.contains("run.output") && $0.hasSuffix("— new-b") }
        try jobd.process.waitForLine(from: failed, "old-a after the reload") { $0.contains("run.output") && $0.hasSuffix("— old-a") }
        #expect(!jobd.process.lines.contains { $0.hasSuffix("— new-a") })
    }

    @Test func aFailedJobIsRetriedWithGrowingDelaysThenItsOnFailureJobHearsOfIt() throws {
        let jobd = try Daemon(jobs: [
            "flaky": """
                [Job]
                OnStartupSec=0
                ExecStart=/bin/sh -c 'echo attempt; exit 3'
                Restart=on-failure
                RestartSec=100ms
                RestartSteps=1
                RestartMaxDelaySec=300ms
                RestartLimit=2
                OnFailure=notify
                """,
            "notify": """
                [Job]
                ExecStart=/bin/sh -c 'echo "by=$JOBD_TRIGGERED_BY run=$JOBD_TRIGGERED_BY_RUN_ID result=$JOBD_RESULT code=$EXIT_CODE status=$EXIT_STATUS"'
                """,
        ])
        let first = try jobd.process.waitForEvent("run.retry", fields: ["JOB": "flaky", "JOBD_ATTEMPT": "1/2"])
        let second = try jobd.process.waitForEvent("run.retry", fields: ["JOB": "flaky", "JOBD_ATTEMPT": "2/2"], from: first + 1)
        #expect(LogLine(jobd.process.lines[first]).message.contains("in 100ms"))
        #expect(LogLine(jobd.process.lines[second]).message.contains("in 300ms"), "the delay grows to RestartMaxDelaySec=")
        let output = try jobd.process.waitForEvent("run.output", fields: ["JOB": "notify"], from: second + 1)
        let exits = jobd.process.events("run.exit").filter { $0.field("JOB") == "flaky" }
        #expect(exits.count == 3 && exits.allSatisfy { $0.field("JOBD_RESULT") == "exit-code" })
        let lastRun = try #require(exits.last?.field("JOBD_RUN_ID"))
        #expect(LogLine(jobd.process.lines[output]).message == "by=flaky run=\(lastRun) result=exit-code code=exited status=3")

        let (status, text) = try jobd.jobctl(["status", "flaky"])
        #expect(status == 3, "jobctl status exits 3 after a failure: \(text)")
        #expect(text.contains("Result: exit-code, status 3"))
        // jobd logs to stderr here: status says why it shows no output lines, not nothing.
        #expect(text.contains("(no journal entry of this run") || text.contains("which cannot be read here"), "\(text)")
        let (_, failed) = try jobd.jobctl(["list", "--failed"])
        let rows = failed.split(separator: "\n").dropFirst().filter { $0.contains("exit-code") || $0.contains("success") }
        #expect(rows.count == 1 && rows[0].contains("flaky"), "\(failed)")
    }

    /// `jobctl run --wait` says on its last line whether a retry follows; `--follow-retries` waits
    /// through the retries and the OnFailure= job, and exits with the last attempt's status.
    @Test func runWaitTellsOfRetriesAndFollowRetriesWaitsThroughThem() throws {
        let jobd = try Daemon(jobs: [
            "flaky": """
                [Job]
                ExecStart=/bin/sh -c 'echo attempt; exit 4'
                Restart=on-failure
                RestartSec=100ms
                RestartLimit=2
                OnFailure=notify
                """,
            "notify": "[Job]\nExecStart=/bin/echo notified\n",
        ])
        let (waited, waitOutput) = try jobd.jobctl(["run", "flaky", "--wait"])
        #expect(waited == 4)
        // stdout (the job's line) and stderr (jobctl's) come through one pipe here, in either order.
        let waitLines = waitOutput.split(separator: "\n")
        #expect(waitLines.count == 2 && waitLines.contains("attempt"), "\(waitOutput)")
        #expect(waitLines.contains { $0.hasPrefix("jobctl: run ") && $0.hasSuffix(" of flaky: exit-code 4; retry 1/2 in 100ms") }, "\(waitOutput)")
        // Let that first run's retries and notifier end before the next run.
        let notified = try jobd.process.waitForEvent("run.exit", fields: ["JOB": "notify"])

        let (followed, followOutput) = try jobd.jobctl(["run", "flaky", "--follow-retries"])
        #expect(followed == 4, "\(followOutput)")
        let lines = followOutput.split(separator: "\n")
        #expect(lines.filter { $0 == "attempt" }.count == 3, "\(followOutput)")
        let ends = lines.filter { $0.hasPrefix("jobctl: ") }
        #expect(ends.count == 4, "\(followOutput)")
        #expect(ends.count == 4 && ends[0].hasSuffix(": exit-code 4; retry 1/2 in 100ms") && ends[1].hasSuffix(": exit-code 4; retry 2/2 in 100ms")
                && ends[2].hasSuffix(" of flaky: exit-code 4") && ends[3] == "jobctl: notify (started by flaky's outcome): success", "\(ends)")
        #expect(jobd.process.events("run.exit").filter { $0.field("JOB") == "notify" }.count == 2, "the notifier ran before jobctl returned")
        _ = notified
    }

    @Test func aSuccessStartsOnSuccessAndStatusExitsZero() throws {
        let jobd = try Daemon(jobs: [
            "ok": "[Job]\nOnStartupSec=0\nExecStart=/bin/true\nOnSuccess=after\n",
            "after": "[Job]\nExecStart=/bin/sh -c 'echo \"after $JOBD_TRIGGERED_BY: $JOBD_RESULT\"'\n",
        ])
        let output = try jobd.process.waitForEvent("run.output", fields: ["JOB": "after"])
        #expect(LogLine(jobd.process.lines[output]).message == "after ok: success")
        let (status, text) = try jobd.jobctl(["status", "ok"])
        #expect(status == 0 && text.contains("Result: success"), "\(text)")
    }

    @Test func aNotifierThatNotifiesItselfRunsOnce() throws {
        let jobd = try Daemon(jobs: ["loop": "[Job]\nOnStartupSec=0\nExecStart=/bin/false\nOnFailure=loop\n"])
        let skipped = try jobd.process.waitForEvent("run.skip", fields: ["JOB": "loop", "JOBD_REASON": "trigger-cycle"])
        #expect(jobd.process.lines[..<skipped].filter { LogLine($0).matches(event: "run.start", fields: ["JOB": "loop"]) }.count == 1)
    }

    @Test func aRunPastRuntimeMaxSecTimesOut() throws {
        let jobd = try Daemon(jobs: ["slow": "[Job]\nOnStartupSec=0\nRuntimeMaxSec=200ms\nExecStart=/bin/sleep 30\n"])
        try jobd.process.waitForEvent("run.exit", fields: ["JOB": "slow", "JOBD_RESULT": "timeout"])
        let (status, text) = try jobd.jobctl(["status", "slow"])
        #expect(status == 3 && text.contains("Result: timeout"), "\(text)")
        let (_, json) = try jobd.jobctl(["status", "slow", "--json"])
        #expect(json.contains("\"lastResult\" : \"timeout\"") && json.contains("\"lastExitStatus\" : \"TERM\""), "\(json)")
        let (missing, error) = try jobd.jobctl(["status", "nope", "--json"])
        #expect(missing == 1 && error.contains("\"error\" : \"no such job: nope\""), "\(error)")
    }
}

import Foundation
import JobdConfig
import JobdTestKit
import Testing

/// `Restart=` and its companions, `OnFailure=` and `OnSuccess=`: what a failed or succeeded run leads to.
@Suite struct FailureKeysTests {
    func read(_ keys: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "backup", path: "/etc/jobd/jobs.d/backup.job", text: "[Job]\nExecStart=/bin/false\nOnStartupSec=1\n" + keys)
    }

    func errors(_ keys: String) -> [ConfigError] {
        if case .failure(let errors) = read(keys) { errors.errors } else { [] }
    }

    @Test func defaultsNeverRetryAndNotifyNobody() throws {
        let definition = try read("").get()
        #expect(definition.restart.condition == .no)
        #expect(definition.restart.delay == TimeSpan(microseconds: 100_000))
        #expect(definition.restart.limit == 3)
        #expect(definition.onFailure.isEmpty && definition.onSuccess.isEmpty)
    }

    @Test func everyKeyIsRead() throws {
        let definition = try read("""
            Restart=on-failure
            RestartSec=2s
            RestartSteps=3
            RestartMaxDelaySec=16s
            RestartLimit=5
            OnFailure=mail-failure page.job
            OnFailure=mail-failure
            OnSuccess=report
            """).get()
        #expect(definition.restart.condition == .onFailure)
        #expect(definition.restart.delay == .seconds(2))
        #expect(definition.restart.steps == 3 && definition.restart.maxDelay == .seconds(16) && definition.restart.limit == 5)
        #expect(definition.onFailure == ["mail-failure", "page"])
        #expect(definition.onSuccess == ["report"])
    }

    @Test func anEmptyAssignmentResetsTheList() throws {
        #expect(try read("OnFailure=a b\nOnFailure=\nOnFailure=c\n").get().onFailure == ["c"])
    }

    @Test func restartAlwaysIsRefusedWithTheReason() throws {
        let error = try #require(errors("Restart=always\n").first)
        #expect(error.line == 4)
        #expect(error.message == "Restart=: 'always' is not a restart condition")
        #expect(error.hint?.contains("on-failure") == true)
    }

    @Test func badValuesNameTheLine() throws {
        #expect(errors("RestartLimit=lots\n").first?.line == 4)
        #expect(errors("RestartSec=soon\n").first?.line == 4)
        #expect(errors("OnFailure=bad/name\n").first?.message == "OnFailure=: 'bad/name' is not a job name")
    }

    /// systemd's growth: RestartSec= for the first retry, RestartMaxDelaySec= at the RestartSteps-th
    /// retry after it, exponential in between (2 s, 4 s, 8 s, 16 s for 2 s to 16 s in 3 steps).
    @Test func theDelayGrowsExponentiallyToItsMaximum() throws {
        let restart = try read("Restart=on-failure\nRestartSec=2s\nRestartSteps=3\nRestartMaxDelaySec=16s\n").get().restart
        #expect((1...6).map { restart.delay(beforeRetry: $0) } == [2, 4, 8, 16, 16, 16].map { TimeSpan.seconds($0) })
    }

    @Test func withoutAMaximumTheDelayStaysPut() {
        var restart = RestartPolicy()
        restart.delay = .seconds(5)
        restart.steps = 4
        #expect((1...5).map { restart.delay(beforeRetry: $0) } == Array(repeating: .seconds(5), count: 5))
    }

    @Test func conditionsPickTheirResults() {
        #expect(RestartPolicy.Condition.onFailure.retries(.exitCode) && RestartPolicy.Condition.onFailure.retries(.startFailed))
        #expect(!RestartPolicy.Condition.onFailure.retries(.success) && !RestartPolicy.Condition.onFailure.retries(.stopped))
        #expect(RestartPolicy.Condition.onAbnormal.retries(.timeout) && !RestartPolicy.Condition.onAbnormal.retries(.exitCode))
        #expect(RestartPolicy.Condition.onAbort.retries(.coreDump) && !RestartPolicy.Condition.onAbort.retries(.timeout))
        #expect(!RestartPolicy.Condition.no.retries(.signal))
    }
}

/// The shipped notifier example is a valid job file whose command is a well-formed shell script
/// that reads the documented variables.
@Suite struct MailFailureExampleTests {
    @Test func theExampleIsValidAndItsScriptParses() throws {
        let path = DaemonProcess.packageRoot() + "/etc/jobd/examples/mail-failure.job"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let definition = try JobFileReader.read(name: "mail-failure", path: path, text: text).get()
        #expect(definition.triggers.isEmpty, "it runs only when another job's OnFailure= starts it")
        let argv = definition.command.argv(environment: ["MAILTO": "root"])
        #expect(Array(argv.prefix(2)) == ["/bin/sh", "-c"] && argv.count == 3)
        let script = argv[2]
        for variable in ["$JOBD_TRIGGERED_BY", "$JOBD_TRIGGERED_BY_RUN_ID", "$JOBD_RESULT", "$EXIT_CODE", "$EXIT_STATUS", "$MAILTO"] {
            #expect(script.contains(variable), "the script reads \(variable)")
        }
        #expect(script.contains("printf \"To: %s\nSubject: jobd: %s failed"), "systemd C escapes: \\n is a newline")
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/bin/sh")
        check.arguments = ["-n", "-c", script]
        try check.run()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "sh -n accepts the script")
    }
}

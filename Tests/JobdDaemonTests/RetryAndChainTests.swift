import JobdConfig
import JobdControl
import JobdDaemon
import JobdRunner
import JobdScheduler
import JobdTestKit
import Testing
import UnixSignals

/// `Restart=` and `OnFailure=`/`OnSuccess=` through the main loop: the retry timer is the loop's
/// own, on the manual queue.
@Suite struct RetryAndChainTests {
    typealias H = DaemonHarness

    static func retried(limit: UInt64 = 3, _ configure: (inout JobDefinition) -> Void = { _ in }) -> JobDefinition {
        H.job("a") {
            $0.restart.condition = .onFailure
            $0.restart.delay = .seconds(1)
            $0.restart.limit = limit
            configure(&$0)
        }
    }

    @Test func aFailedRunIsRetriedAfterRestartSec() {
        let daemon = H([Self.retried()])
        daemon.control(.run, "a")
        daemon.end("a", .exited(1))
        daemon.advance(.milliseconds(999))
        #expect(daemon.started("a").count == 1, "not before RestartSec=")
        daemon.advance(.milliseconds(1))
        #expect(daemon.started("a").map(\.request.cause) == [.manual, .retry])
        #expect(daemon.started("a").last?.request.attempt == 1)
        #expect(daemon.events("run.retry", job: "a").count == 1)
    }

    /// What `jobctl run --wait` hears of a run that failed and is retried, byte for byte as jobd
    /// wrote it before a run's outcome was one type: a jobctl of that time reads it.
    @Test func theRunFinishedReplyIsTheWireFormatAnOlderJobctlReads() throws {
        let daemon = H([Self.retried()])
        let reply = daemon.control(.run, "a", wait: true)
        let run = try #require(daemon.running("a").first?.request)
        daemon.end("a", .killed(signal: 15))
        daemon.advance(.seconds(1))
        let retry = try #require(daemon.started("a").last?.request)
        #expect(retry.runID != run.runID)
        let line = try #require(reply.responses.last?.jsonLine)
        #expect(String(decoding: line, as: UTF8.self) == """
            {"run":{"exitCode":"killed","exitStatus":"TERM","invocationID":"\(run.invocationID)","job":"a","result":"signal",\
            "retryAttempt":1,"retryDelayUSec":1000000,"retryLimit":3,"retryRunID":\(retry.runID),"runID":\(run.runID),\
            "shellStatus":143,"succeeded":false},"type":"run-finished","version":1}

            """)
    }

    @Test func retriesStopAtTheLimit() {
        let daemon = H([Self.retried(limit: 1)])
        daemon.control(.run, "a")
        daemon.end("a", .exited(1))
        daemon.advance(.seconds(1))
        daemon.end("a", .exited(1))
        daemon.advance(.seconds(60))
        #expect(daemon.started("a").filter { $0.request.cause == .retry }.count == 1)
    }

    @Test func aSuccessIsNotRetried() {
        let daemon = H([Self.retried()])
        daemon.control(.run, "a")
        daemon.end("a", .exited(0))
        daemon.advance(.seconds(5))
        #expect(daemon.started("a").count == 1)
        #expect(daemon.events("run.retry").isEmpty)
    }

    @Test func aRunByHandSupersedesThePendingRetry() {
        let daemon = H([Self.retried()])
        daemon.control(.run, "a")
        daemon.end("a", .exited(1))
        daemon.control(.run, "a")
        #expect(daemon.skipReasons("a") == ["superseded"])
        daemon.end("a")
        daemon.advance(.seconds(5))
        #expect(daemon.started("a").map(\.request.cause) == [.manual, .manual])
    }

    @Test func disablingAJobCancelsItsPendingRetry() {
        let daemon = H([Self.retried()])
        daemon.control(.run, "a")
        daemon.end("a", .exited(1))
        daemon.control(.disable, "a")
        #expect(daemon.skipReasons("a") == ["disabled"])
        daemon.advance(.seconds(5))
        #expect(daemon.started("a").count == 1)
    }

    @Test func stopCancelsThePendingRetry() {
        let daemon = H([Self.retried()])
        daemon.control(.run, "a")
        daemon.end("a", .exited(1))
        let reply = daemon.control(.stop, "a")
        #expect(reply.responses.first?.message == "a has no run in flight")
        #expect(daemon.skipReasons("a") == ["stopped"])
        daemon.advance(.seconds(5))
        #expect(daemon.started("a").count == 1)
    }

    @Test func onFailureStartsItsJobOnceNoRetryIsLeft() {
        let daemon = H([Self.retried(limit: 1) { $0.onFailure = ["alert"] }, H.job("alert")])
        daemon.control(.run, "a")
        daemon.end("a", .exited(1))
        #expect(daemon.started("alert").isEmpty, "a retry is still to come")
        daemon.advance(.seconds(1))
        daemon.end("a", .exited(1))
        let alert = daemon.started("alert")
        #expect(alert.map(\.request.cause) == [.onFailure])
        #expect(alert.first?.request.triggeredBy?.job == "a")
        #expect(alert.first?.context["JOBD_TRIGGERED_BY"] == "a")
        #expect(alert.first?.context["EXIT_STATUS"] == "1")
    }

    @Test func onSuccessStartsItsJob() {
        let daemon = H([H.job("a") { $0.onSuccess = ["next"] }, H.job("next")])
        daemon.control(.run, "a")
        daemon.end("a")
        #expect(daemon.started("next").map(\.request.cause) == [.onSuccess])
    }

    @Test func aCycleOfOnFailureJobsIsCut() {
        let daemon = H([H.job("a") { $0.onFailure = ["b"] }, H.job("b") { $0.onFailure = ["a"] }])
        daemon.control(.run, "a")
        daemon.end("a", .exited(1))
        daemon.end("b", .exited(1))
        #expect(daemon.started("a").count == 1)
        #expect(daemon.skipReasons("a") == ["trigger-cycle"])
    }

    @Test func followRetriesFollowsTheOnFailureJobTheLastAttemptStarted() {
        let daemon = H([H.job("a") { $0.onFailure = ["alert"] }, H.job("alert")])
        let reply = daemon.control(.run, "a", wait: true, followRetries: true)
        daemon.end("a", .exited(1))
        #expect(!reply.isFinished, "the waiter follows alert's run")
        daemon.end("alert")
        #expect(reply.kinds == [.runStarted, .runFinished, .runFinished])
        #expect(reply.responses.last?.run?.job == "alert")
        #expect(reply.isFinished)
    }
}

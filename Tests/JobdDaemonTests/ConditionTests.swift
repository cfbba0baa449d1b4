import JobdConfig
import JobdControl
import JobdDaemon
import JobdRunner
import JobdScheduler
import JobdTestKit
import Testing

/// `Condition…=` through the main loop: a condition that does not hold skips the run
/// (`run.skip`, `JOBD_REASON=condition`) before anything starts; one that holds lets it run.
@Suite struct ConditionTests {
    typealias H = DaemonHarness

    static func condition(_ key: String, _ value: String) -> UnitCondition {
        let (kind, isAssertion) = UnitCondition.kind(ofKey: key)!
        return try! UnitCondition.read(kind, isAssertion: isAssertion, value: value).get()
    }

    @Test func anUnmetConditionSkipsTheRunAndAMetOneLetsItStart() {
        let daemon = H([
            H.job("gated") { $0.conditions = [Self.condition("ConditionPathExists", "/nonexistent/jobd-condition-test")] },
            H.job("open") { $0.conditions = [Self.condition("ConditionPathExists", "!/nonexistent/jobd-condition-test")] },
        ])
        _ = daemon.control(.run, "gated")
        _ = daemon.control(.run, "open")
        #expect(daemon.started().map(\.request.job) == ["open"])
        #expect(daemon.skipReasons("gated") == ["condition"])
        #expect(daemon.control(.status, "gated").responses.first?.jobStatus?.running == 0, "nothing of it runs")
    }

    /// Assertions are the run's own affair (it fails, result `assert`): the loop starts it.
    @Test func anAssertionIsLeftToTheRun() {
        let daemon = H([H.job("asserted") { $0.conditions = [Self.condition("AssertPathExists", "/nonexistent/jobd-condition-test")] }])
        _ = daemon.control(.run, "asserted")
        #expect(daemon.started().map(\.request.job) == ["asserted"])
        #expect(daemon.skipReasons("asserted").isEmpty)
    }
}

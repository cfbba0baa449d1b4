import JobdConfig
import JobdControl
import JobdDaemon
import JobdScheduler
import InMemoryLogging
import Logging
import Testing

/// Issue 40 item 1: what `jobctl why` reads from the journal. Every entry of a run a trigger asked
/// for names the elapse it serves, a skipped one's too, and the note of a condition that did not
/// hold names the condition; the entries of a run by hand say so.
@Suite struct ElapseJournalFieldsTests {
    typealias H = DaemonHarness

    @Test func aSkippedElapseNamesItsElapseAndAnUnmetConditionItsCondition() throws {
        let daemon = H([DueTimeRulesDaemonTests.cron("slow", "* * * * *")])
        daemon.advance(.seconds(60))  // 00:01: starts, and is still in flight at 00:02
        daemon.advance(.seconds(60))
        let skip = try #require(daemon.events("run.skip", job: "slow").first)
        #expect(skip.metadata["JOBD_REASON"] == "overlap")
        #expect(skip.metadata["JOBD_ELAPSE_USEC"] == .string(String(DaemonHarness.wallStart + 120_000_000)))
        #expect(skip.metadata["JOBD_CAUSE"] == nil, "a timer's run has no cause field")

        var gated = DueTimeRulesDaemonTests.cron("gated", "* * * * *")
        gated.conditions = [ConditionTests.condition("ConditionPathExists", "/nonexistent/jobd-why-test")]
        let other = H([gated])
        other.advance(.seconds(60))
        let note = try #require(other.log.entries.first { $0.metadata["JOBD_CONDITION"] != nil })
        #expect(note.metadata["JOBD_CONDITION"] == "ConditionPathExists=/nonexistent/jobd-why-test")
        #expect(note.metadata["JOBD_RUN_ID"] == other.events("run.skip", job: "gated").first?.metadata["JOBD_RUN_ID"])

        _ = other.control(.run, "gated")
        #expect(other.events("run.skip", job: "gated").last?.metadata["JOBD_CAUSE"] == "manual")
    }
}

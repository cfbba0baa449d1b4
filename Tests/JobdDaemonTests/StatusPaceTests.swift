import JobdConfig
import JobdControl
import JobdDaemon
import JobdTestKit
import Testing

/// `STATUS=` goes out at most once a ``StatusLine/interval`` while it keeps changing: the first
/// change at once, the ones after it together at the interval's end, with the text of then
/// (the pace itself: PacerTests).
struct StatusPaceTests {
    private typealias H = DaemonHarness

    /// Through the main loop: of 20 runs that end at one instant, a second after `READY=1`, the
    /// first end's `STATUS=` goes out at once, the others' in one after the interval, which says
    /// what is true then.
    @Test func twentyRunsEndingTogetherSendTwoStatusLines() throws {
        let listener = try NotifyListener()
        let daemon = H([H.job("a", overlap: .parallel)], notifySocket: listener.address)
        let ready = try listener.waitForMessage("READY=1") { $0.assignments["READY"] == "1" }
        for _ in 0..<20 { daemon.control(.run, "a") }
        #expect(daemon.running("a").count == 20)
        daemon.advance(.seconds(1))
        for _ in 0..<20 { daemon.end("a") }
        daemon.advance(StatusLine.interval)
        let last = try listener.waitForMessage(from: ready + 1, "STATUS= with no run") {
            $0.assignments["STATUS"]?.hasPrefix("1 job(s), 0 running") == true
        }
        let statuses = listener.messages[(ready + 1)...].compactMap { $0.assignments["STATUS"] }
        #expect(statuses.count == 2 && last == ready + 2, "\(statuses)")
        #expect(statuses.first?.hasPrefix("1 job(s), 19 running") == true, "\(statuses)")
    }
}

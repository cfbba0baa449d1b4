import JobdConfig
import JobdControl
import JobdDaemon
import JobdScheduler
import JobdTimers
import JobdTestKit
import Testing

/// `reload-preview` through the main loop, with no process: what a reload would do, and nothing done.
@Suite struct ReloadPreviewTests {
    typealias H = DaemonHarness

    @Test func aPreviewSaysWhatAReloadWouldDoAndAppliesNothing() throws {
        let daemon = H([H.job("a", every: 3_600), H.job("gone")])
        daemon.advance(.seconds(600))
        let ownersBefore = daemon.scheduler.generation.owners.mapValues(\.id)
        let historiesBefore = daemon.scheduler.histories
        let reply = daemon.control(.reloadPreview)
        #expect(daemon.source.reading == 1, "read off the loop, as a reload reads")
        daemon.finishRead([H.job("a", every: 3_600, command: "/bin/false"), H.job("new", every: 1_800)])
        #expect(reply.kinds == [.reloadPreview] && reply.isFinished)
        let preview = try #require(reply.responses.first?.schedule)
        #expect(preview.changes.map { "\($0.kind) \($0.job) \($0.keys)" } == ["changed a [\"ExecStart\"]", "removed gone []", "added new []"])
        let now = H.wallStart + 600_000_000
        #expect(preview.changes.first { $0.job == "a" }?.after?.earliestUSec == H.wallStart + 3_600_000_000, "a changed command keeps the schedule")
        #expect(preview.changes.first { $0.job == "new" }?.after?.earliestUSec == now + 1_800_000_000, "a new schedule counts from the reload")
        #expect(preview.changes.allSatisfy { $0.after?.reason != "catch-up" && $0.after?.reason != "missed" })
        #expect(preview.accepted && preview.kept == 0)
        // Nothing changed: the generation, the owners, the histories, the reloads.
        #expect(daemon.scheduler.generation.number == 1)
        #expect(daemon.scheduler.generation.owners.mapValues(\.id) == ownersBefore)
        #expect(daemon.scheduler.histories == historiesBefore)
        #expect(daemon.store.histories.withLock { $0.isEmpty })
        #expect(daemon.events("reload.done").isEmpty && daemon.control(.status).responses.first?.daemon?.lastReload == nil)
    }

    @Test func aPreviewReportsErrorsAndFailsAsTheReloadWould() throws {
        let daemon = H([H.job("a")])
        let reply = daemon.control(.reloadPreview)
        daemon.finishRead([H.job("a")], broken: [H.brokenFile("b")])
        let preview = try #require(reply.responses.first?.schedule)
        #expect(!preview.accepted)
        #expect(preview.errors == ["/etc/jobd/jobs.d/b.job:3: error: Trigger: expected a time span"])
        #expect(preview.changes.isEmpty && preview.kept == 1, "a new broken file adds nothing")
    }
}

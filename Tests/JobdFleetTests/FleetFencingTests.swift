import Foundation
import JobdCalendar
import JobdConfig
import JobdFleet
import JobdTestKit
import Testing

/// Fencing against a real PostgreSQL: the deadlines a node gives its runs' fences at each claim and
/// renewal, the fence it stops for good when its run was recorded lost or its deadline passed
/// unrenewed, and the end that never overwrites a `lost` record (schema version 2).
@Suite(.serialized, .enabled(if: TemporaryPostgres.unavailableReason == nil || ProcessInfo.processInfo.environment["CI"] != nil))
struct FleetFencingTests {
    /// What a node wrote to its fences: each run's last deadline, and the runs whose fence went.
    final class Fences: @unchecked Sendable {
        private let lock = NSLock()
        private var deadlines: [String: Int64] = [:]
        private var gone: [String] = []

        private var clock: Int64?

        /// The fences' clock: CLOCK_BOOTTIME, until a test sets it.
        var fences: LeaseFences {
            LeaseFences(extend: { runID, deadline in self.lock.withLock { self.deadlines[runID] = deadline } },
                        remove: { runID in self.lock.withLock { self.gone.append(runID) } },
                        now: { self.lock.withLock { self.clock } ?? LeaseFences.boottime() },
                        read: { runID in self.lock.withLock { self.deadlines[runID] } })
        }

        func setClock(_ microseconds: Int64) { lock.withLock { clock = microseconds } }

        func deadline(_ runID: String) -> Int64? { lock.withLock { deadlines[runID] } }
        var removed: [String] { lock.withLock { gone } }
    }

    static func node(_ postgres: TemporaryPostgres, _ name: String, lease: TimeSpan = .seconds(3),
                     fences: Fences? = nil) throws -> FleetDatabase {
        var settings = try FleetDatabaseTests.settings(postgres, node: name)
        settings.lease = lease
        settings.maxClockSkew = TimeSpan(microseconds: 500_000)
        return try FleetDatabase(settings: settings, instance: name,
                                 realtime: { RealtimeInstant(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000)) },
                                 fences: fences?.fences)
    }

    static func fleet() throws -> TemporaryPostgres {
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "secret")
        return postgres
    }

    @Test func aRenewalThatFindsItsRunRecordedLostStopsItsFenceAndItsEndKeepsTheLostRecord() async throws {
        let postgres = try Self.fleet()
        let fences = Fences()
        // The fences' clock is the test's: a machine stalled between two statements (a loaded test
        // run's thread pool was seen to stall 30 s) must not pass a deadline the test did not mean to.
        fences.setClock(1_000_000_000)
        let a = try Self.node(postgres, "a", lease: .seconds(30), fences: fences)
        let b = try Self.node(postgres, "b", lease: .seconds(30))
        try await a.connect()
        try await b.connect()
        let key = ClaimKey(job: "report", elapse: RealtimeInstant(seconds: Int64(Date().timeIntervalSince1970)))
        #expect(await a.claim(key, runID: "r1").isWon)
        // Sent at 1,000 s: the lease (30 s) less the margin (MaxClockSkewSec=500ms).
        #expect(fences.deadline("r1") == 1_029_500_000)
        fences.setClock(1_001_000_000)
        _ = try await a.beat()
        #expect(fences.deadline("r1") == 1_030_500_000, "each renewal extends the fence from when it was sent")

        // Node a's lease lapses (as if it were paused): node b records the run lost.
        _ = try postgres.psql("UPDATE jobd.claims SET lease_until = now() - interval '1 second'", database: "fleet")
        #expect(try await b.beat().lost.map(\.runID) == ["r1"])
        _ = try await a.beat()
        #expect(fences.deadline("r1") == 0, "the fence stops the run at once")
        _ = try await a.beat()
        #expect(fences.deadline("r1") == 0, "and is never extended again")

        // The run's real end, as its supervisor saw it, goes to its own columns.
        let end = RealtimeInstant(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000) - 2_000_000)
        await a.finish(runID: "r1", result: "lost", endedAt: end)
        #expect(fences.removed == ["r1"])
        let record = try #require(try await a.claims().first)
        #expect(record.result == "lost" && record.endedAt == nil && record.lostBy == "b" && record.runResult == "lost", "\(record)")
        let written = try #require(record.runEndedAt).microseconds
        #expect(abs(written - end.microseconds) < 500_000, "the end as the supervisor saw it, on the database's clock")
        #expect(record.ranUntil == record.runEndedAt)
        await a.shutdown()
        await b.shutdown()
    }

    /// Issue 36: the next jobd of a node (a second database link, as after `kill -9` of jobd) takes
    /// over the claims of the runs it adopts: it renews the lease and the fence the earlier one
    /// wrote, and records the run's end; a claim another node recorded lost meanwhile is not
    /// renewed, and its fence stops the run at once; a run not adopted has its claim ended.
    @Test func theNextJobdTakesOverTheClaimsOfTheRunsItAdopts() async throws {
        let postgres = try Self.fleet()
        let fences = Fences()
        fences.setClock(1_000_000_000)
        let before = try Self.node(postgres, "a", lease: .seconds(30), fences: fences)
        try await before.connect()
        let second = Int64(Date().timeIntervalSince1970)
        let (kept, lost, gone) = (ClaimKey(job: "report", elapse: RealtimeInstant(seconds: second)),
                                  ClaimKey(job: "report", elapse: RealtimeInstant(seconds: second - 60)),
                                  ClaimKey(job: "dump", elapse: RealtimeInstant(seconds: second)))
        #expect(await before.claim(kept, runID: "r1").isWon)
        #expect(await before.claim(lost, runID: "r2").isWon)
        #expect(await before.claim(gone, runID: "r3").isWon)
        let written = try #require(fences.deadline("r1"))
        let leaseBefore = try postgres.psql("SELECT lease_until FROM jobd.claims WHERE run_id = 'r1'", database: "fleet")
        // jobd is killed: nothing renews its claims. Node b records r2 lost.
        await before.close()
        _ = try postgres.psql("UPDATE jobd.claims SET lost_at = now(), lost_by = 'b', result = 'lost' WHERE run_id = 'r2'", database: "fleet")

        let after = try Self.node(postgres, "a", lease: .seconds(30), fences: fences)
        try await after.connect()
        fences.setClock(1_001_000_000)
        #expect(await after.adopt(runID: "r1", key: kept))
        #expect(written == 1_029_500_000 && fences.deadline("r1") == 1_030_500_000,
                "the fence is extended from the adopting jobd's renewal")
        let leaseAfter = try postgres.psql("SELECT lease_until > '\(leaseBefore)'::timestamptz FROM jobd.claims WHERE run_id = 'r1'",
                                           database: "fleet")
        #expect(leaseAfter == "t", "the lease is renewed in the database")
        #expect(await !after.adopt(runID: "r2", key: lost))
        #expect(fences.deadline("r2") == 0, "a claim another node recorded lost: its fence stops the run")
        await after.release(runID: "r3", key: gone, result: "abandoned")
        _ = try await after.beat()
        #expect(try #require(fences.deadline("r1")) > written)

        await after.finish(runID: "r1", result: "success")
        let records = Dictionary(try await after.claims().map { ($0.runID, $0) }) { first, _ in first }
        #expect(records["r1"]?.result == "success" && records["r1"]?.node == "a" && records["r1"]?.lostAt == nil, "\(records)")
        #expect(records["r3"]?.result == "abandoned" && records["r3"]?.endedAt != nil, "\(records)")
        #expect(records["r2"]?.result == "lost", "\(records)")
        await after.shutdown()
    }

    /// jobd stalled past the deadline it gave a fence (the fence fired meanwhile): the next renewal
    /// keeps the row's lease, so that no other node retries the run while it stops, but never
    /// extends the fence again; the run's end is then the row's end.
    @Test func aDeadlineThatPassedUnrenewedStopsTheFenceForGood() async throws {
        let postgres = try Self.fleet()
        let fences = Fences()
        fences.setClock(1_000_000_000)
        let a = try Self.node(postgres, "a", lease: .seconds(30), fences: fences)
        try await a.connect()
        let key = ClaimKey(job: "report", elapse: RealtimeInstant(seconds: Int64(Date().timeIntervalSince1970)))
        #expect(await a.claim(key, runID: "r1").isWon)
        // Sent at 1,000 s: the lease (30 s) less the margin (MaxClockSkewSec=500ms).
        let deadline: Int64 = 1_029_500_000
        #expect(fences.deadline("r1") == deadline)
        _ = try await a.beat()
        #expect(fences.deadline("r1") == deadline, "renewed when sent before the deadline")
        // jobd stalls 40 s (by the fences' clock) before its next renewal.
        fences.setClock(1_040_000_000)
        _ = try await a.beat()
        #expect(fences.deadline("r1") == 0)
        let open = try #require(try await a.claims().first)
        #expect(open.isOpen && open.lostAt == nil)
        await a.finish(runID: "r1", result: "lost")
        let ended = try #require(try await a.claims().first)
        #expect(ended.result == "lost" && ended.endedAt != nil && ended.runEndedAt == nil)
        await a.shutdown()
    }

    /// A fleet whose schema is at version 1 (before fencing) migrates in place: its claims stay.
    @Test func aFleetAtSchemaVersionOneMigratesInPlace() async throws {
        let postgres = try Self.fleet()
        let a = try Self.node(postgres, "a")
        try await a.connect()
        #expect(await a.claim(ClaimKey(job: "report", elapse: RealtimeInstant(seconds: 1_800_000_000)), runID: "r1").isWon)
        await a.finish(runID: "r1", result: "success")
        await a.shutdown()
        _ = try postgres.psql("""
            ALTER TABLE jobd.claims DROP COLUMN run_ended_at, DROP COLUMN run_result, DROP COLUMN fence;
            DROP SEQUENCE jobd.fence_tokens;
            DELETE FROM jobd.schema_version WHERE version >= 2
            """, database: "fleet")
        // A reader (jobctl) reads a version 1 fleet as it is, and migrates nothing.
        let reader = try Self.node(postgres, "reader")
        try await reader.connectToRead()
        #expect(try await reader.claims().map(\.result) == ["success"])
        #expect(try postgres.psql("SELECT max(version) FROM jobd.schema_version", database: "fleet") == "1")
        await reader.close()
        let b = try Self.node(postgres, "b")
        try await b.connect()
        #expect(try postgres.psql("SELECT max(version) FROM jobd.schema_version", database: "fleet") == String(FleetSchema.version))
        let records = try await b.claims()
        #expect(records.count == 1 && records.first?.result == "success" && records.first?.runEndedAt == nil)
        // Claims made before fencing tokens have none; the next one has one.
        #expect(await b.claim(ClaimKey(job: "report", elapse: RealtimeInstant(seconds: 1_800_000_060)), runID: "r2") == .won(token: 1))
        #expect(try postgres.psql("SELECT run_id || '=' || coalesce(fence::text, 'none') FROM jobd.claims ORDER BY run_id", database: "fleet")
                == "r1=none\nr2=1")
        await b.shutdown()
    }

    /// Issue 40: each claim takes a fencing token above every earlier one, whichever node makes it,
    /// so a run whose lease another node took over holds the lower token (`JOBD_FENCE`): a retry,
    /// another node's claim of a later attempt, claims sent together in one statement.
    @Test func everyClaimHoldsAHigherFencingTokenThanTheOnesBefore() async throws {
        let postgres = try Self.fleet()
        let a = try Self.node(postgres, "a"), b = try Self.node(postgres, "b")
        try await a.connect()
        try await b.connect()
        let elapse = RealtimeInstant(seconds: 1_800_000_000)
        func token(_ verdict: ClaimVerdict) -> Int64? { if case .won(let token) = verdict { token } else { nil } }
        let first = try #require(token(await a.claim(ClaimKey(job: "report", elapse: elapse), runID: "r1")))
        #expect(await b.claim(ClaimKey(job: "report", elapse: elapse), runID: "r1b") == .taken(by: "a"))
        let retry = try #require(token(await b.claim(ClaimKey(job: "report", elapse: elapse, attempt: 1), runID: "r2")))
        let together = await withTaskGroup(of: Int64?.self) { group in
            for index in 0 ..< 20 {
                group.addTask { token(await a.claim(ClaimKey(job: "j\(index)", elapse: elapse), runID: "b\(index)")) }
            }
            return await group.reduce(into: [Int64?]()) { $0.append($1) }
        }
        let batch = together.compactMap { $0 }
        #expect(first < retry && batch.count == 20 && Set(batch).count == 20 && batch.allSatisfy { $0 > retry }, "\(first) \(retry) \(batch)")
        await a.shutdown()
        await b.shutdown()
    }
}

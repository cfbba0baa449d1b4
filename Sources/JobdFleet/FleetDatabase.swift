package import JobdCalendar
package import JobdConfig
import JobdLocks
package import Logging

/// This node's link to the fleet's PostgreSQL: one connection, opened and migrated by
/// ``connect()``, used for claims, their ends, and the periodic ``beat()`` (heartbeat, lease
/// renewal, lost-run detection, clock check). Any failure drops the connection; the caller
/// reconnects (``FleetLink``). While there is no connection nothing is claimed: a claim answers
/// ``ClaimVerdict/unavailable(reason:)`` at once.
///
/// The actor runs on a thread of its own (``FleetExecutor``): its libpq calls block that thread,
/// each for the schedule's operation timeout at most, and never jobd's main loop or Swift's
/// concurrency pool. Its methods do not suspend between the statements they send, so the
/// statements of one method (a migration's transaction) never interleave with another's.
package actor FleetDatabase {
    package nonisolated let settings: FleetSettings
    package nonisolated let instance: String
    package nonisolated let schedule: LeaseSchedule
    private nonisolated let logger: Logger
    private nonisolated let executor: FleetExecutor
    private let realtime: @Sendable () -> RealtimeInstant
    private var connection: PostgresConnection? {
        didSet { hasConnection.withLock { [connection] in $0 = connection != nil } }
    }
    /// Whether there is a connection, readable without waiting for the database's thread: while
    /// that thread tries to reach a database that does not answer, a claim answers at once.
    private nonisolated let hasConnection = LockedBox(false)
    /// The database's clock minus this node's, in microseconds, as the last beat measured it.
    package private(set) var clockOffset: Int64?
    /// How far ``clockOffset`` may be wrong: half the round trip that measured it.
    package private(set) var clockUncertainty: Int64 = 0
    /// Runs this node claimed and has not recorded the end of, by run id (`JOBD_RUN_ID`).
    private var held: [String: ClaimKey] = [:]
    /// The fences of the claimed runs running here: each run's deadline (``LeaseFences/now``
    /// microseconds; 0 once it lost the lease, for good), by run id.
    private var fenced: [String: Int64] = [:]
    private nonisolated let fences: LeaseFences?
    /// Ends not yet written (the database was unreachable when the run ended), by run id.
    private var pendingEnds: [String: PendingEnd] = [:]

    /// A run's end: its result, and, for a run its fence stopped, when it really ended (this
    /// node's wall clock): written then as the database's time, by the clock offset.
    struct PendingEnd: Sendable {
        var result: String
        var endedAt: RealtimeInstant?
    }
    /// Round trips to the database so far (the benchmark's count).
    package private(set) var roundTrips = 0
    /// When this node last removed old claims (`MaxRetentionSec=`).
    private var lastPrune: RealtimeInstant?
    /// Elapses this node skipped because it could not claim them (`fleet-unavailable`), oldest
    /// first, at most ``skippedLimit``: written to the claims table when it connects again, so that
    /// the fleet's record (and `jobctl audit --fleet`) says what happened to every elapse. Kept
    /// apart from the actor's state: a claim answers at once while the database's thread waits.
    private nonisolated let skipped = LockedBox<[SkippedClaim]>([])
    /// Runs' ends reported (``reportEnd(runID:result:endedAt:)``) and not yet taken in by the actor,
    /// oldest first. Queued at once on the reporter's thread, so that jobd's stop writes an end
    /// whose task never ran (a stop cancels the tasks not yet started).
    private nonisolated let reportedEnds = LockedBox<[(runID: String, end: PendingEnd)]>([])
    /// Claims waiting to be sent (``claim(_:runID:)``), oldest first.
    private nonisolated let waitingClaims = LockedBox(WaitingClaims())
    /// Verdicts of claims sent with another's, until their own claimers read them.
    private var answers: [UInt64: ClaimVerdict] = [:]
    static let skippedLimit = 10_000

    /// An elapse a node skipped, and the run id its run would have had.
    struct SkippedClaim: Sendable, Hashable {
        var key: ClaimKey
        var runID: String
    }

    /// A logger that drops everything, for readers such as jobctl.
    package static let silent = Logger(label: "jobd-fleet") { _ in SwiftLogNoOpLogHandler() }

    /// Starts the database's thread; it ends when the database goes. `fences` keep the deadlines
    /// of the claimed runs (a node's; a reader has none).
    package init(
        settings: FleetSettings, instance: String, logger: Logger = FleetDatabase.silent,
        realtime: @escaping @Sendable () -> RealtimeInstant, fences: LeaseFences? = nil
    ) throws(FleetError) {
        self.executor = try FleetExecutor()
        self.fences = fences
        self.settings = settings
        self.instance = instance
        self.logger = logger
        self.realtime = realtime
        self.schedule = LeaseSchedule(leaseMicroseconds: Int64(settings.lease.microseconds),
                                      maxSkewMicroseconds: Int64(settings.maxClockSkew.microseconds))
    }

    deinit {
        executor.stop()
    }

    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    package var isConnected: Bool { connection?.isOpen ?? false }
    /// Whether the connection is encrypted (for the tests).
    package var usesTLS: Bool { connection?.usesTLS ?? false }
    private nonisolated var table: String { settings.schema + ".claims" }
    private nonisolated var nodes: String { settings.schema + ".nodes" }

    // MARK: Connection

    /// Opens the connection, migrates the schema, and sends a first heartbeat.
    /// That beat settles, first of all, the claims whose commit this node never heard of (the
    /// connection died with the statement in flight, as at a failover): ``recordSkipped(_:)``.
    @discardableResult
    package func connect() async throws(FleetError) -> BeatReport {
        try open(migrating: true)
        return try await beat()
    }

    /// Opens the connection to read (`jobctl fleet`, `jobctl audit --fleet`): no migration, no
    /// heartbeat, so that a reader never counts as a node.
    package func connectToRead() async throws(FleetError) {
        try open(migrating: false)
    }

    private func open(migrating: Bool) throws(FleetError) {
        drop()
        do throws(FleetError) {
            let parameters = try FleetConnectionString.parameters(settings, timeout: schedule.operationTimeout)
            let opened = try PostgresConnection.open(parameters, deadline: deadline())
            connection = opened
            if migrating { try migrate(opened) }
        } catch {
            throw dropping(error)
        }
    }

    /// After a statement failed: the connection is dropped (the next beat opens it again).
    private func dropping(_ error: FleetError) -> FleetError {
        drop()
        return error
    }

    /// Closes the connection (it is reopened by the next ``connect()``).
    package func drop() {
        connection = nil
    }

    /// jobd's stop: the ends of the runs it stopped are written (connecting again if need be, as
    /// their tasks may have been cancelled mid-write), and every elapse it skipped, however young,
    /// then the connection is closed. Without this the leases of runs stopped at shutdown would
    /// lapse into `lost`, and be retried elsewhere; and an elapse skipped in the lease before the
    /// stop (the fleet just back from a failover) would have no row if every node stopped.
    package func shutdown() async {
        takeReportedEnds()
        let hasSkipped = skipped.withLock { !$0.isEmpty }
        if !pendingEnds.isEmpty || hasSkipped {
            if !isConnected { try? open(migrating: false) }
            try? writeEnds()
            if let connection, connection.isOpen { try? recordSkipped(connection, stopping: true) }
        }
        close()
    }

    /// Closes the connection (a reader's last act before it exits).
    package func close() {
        connection = nil
    }

    private func migrate(_ connection: PostgresConnection) throws(FleetError) {
        let schema = settings.schema
        try run(connection, "BEGIN")
        do throws(FleetError) {
            try run(connection, "SELECT pg_advisory_xact_lock(hashtext('jobd-fleet-' || current_database() || '-\(schema)'))")
            try run(connection, "CREATE TABLE IF NOT EXISTS \(schema).schema_version (version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
            let rows = try query(connection, "SELECT coalesce(max(version), 0) FROM \(schema).schema_version")
            var current = 0
            for row in rows { current = Int(try row.int64(0)) }
            guard current <= FleetSchema.version else {
                throw FleetError(.schema, "the fleet schema \(schema) is at version \(current), newer than this jobd's \(FleetSchema.version): upgrade jobd")
            }
            for migration in current..<FleetSchema.version {
                for statement in FleetSchema.statements(migration, schema: schema) { try run(connection, statement) }
                try run(connection, "INSERT INTO \(schema).schema_version (version) VALUES ($1)", [.integer(Int32(migration + 1))])
                logger.notice("fleet schema \(schema) migrated to version \(migration + 1)")
            }
            try run(connection, "COMMIT")
        } catch {
            try? run(connection, "ROLLBACK")
            throw error
        }
    }

    // MARK: Claims

    /// Claims `key` for the run `runID`. Claims that arrive while one is being sent are sent
    /// together, as one statement (`INSERT … SELECT FROM unnest(…) ON CONFLICT DO NOTHING`): the
    /// elapses due in the same second cost one round trip per batch, not one per job. Without a
    /// connection it answers at once, without waiting for the database's thread.
    package nonisolated func claim(_ key: ClaimKey, runID: String) async -> ClaimVerdict {
        guard hasConnection.withLock({ $0 }) else { return unavailable(key, runID: runID) }
        let id = waitingClaims.withLock { waiting in
            waiting.next += 1
            waiting.claims.append(WaitingClaim(id: waiting.next, key: key, runID: runID))
            return waiting.next
        }
        // Straight onto the database's thread (no task of Swift's pool in between): the first
        // claimer there sends every claim waiting by then, the others find their answer.
        return await answer(to: id)
    }

    /// A claim waiting to be sent.
    private struct WaitingClaim: Sendable {
        var id: UInt64
        var key: ClaimKey
        var runID: String
    }

    /// The claims waiting to be sent, oldest first, and the last id given.
    private struct WaitingClaims: Sendable {
        var claims: [WaitingClaim] = []
        var next: UInt64 = 0
    }

    /// The most claims one statement carries.
    static let claimBatchLimit = 1_000

    /// The verdict of the claim numbered `id`: sent by an earlier call with others, or now.
    private func answer(to id: UInt64) -> ClaimVerdict {
        if let verdict = answers.removeValue(forKey: id) { return verdict }
        while true {
            let batch = waitingClaims.withLock { waiting in
                let batch = Array(waiting.claims.prefix(Self.claimBatchLimit))
                waiting.claims.removeFirst(batch.count)
                return batch
            }
            guard !batch.isEmpty else { break }
            let verdicts = claimConnected(batch.map { ($0.key, $0.runID) })
            for (claim, verdict) in zip(batch, verdicts) { answers[claim.id] = verdict }
        }
        return answers.removeValue(forKey: id) ?? .unavailable(reason: Self.skippedResult)
    }

    /// The verdict of a claim that could not reach the database: the elapse is skipped, and kept to
    /// be recorded when the node connects again.
    private nonisolated func unavailable(_ key: ClaimKey, runID: String) -> ClaimVerdict {
        skipped.withLock {
            $0.append(SkippedClaim(key: key, runID: runID))
            if $0.count > Self.skippedLimit { $0.removeFirst($0.count - Self.skippedLimit) }
        }
        return .unavailable(reason: Self.skippedResult)
    }

    /// The claims of a batch (``arrays(of:)``) as a table, numbered so that each row of an answer
    /// finds its claim.
    private static let claimInput = """
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
            WITH ORDINALITY AS input(job, elapse, attempt, run_id, n)
        """

    /// Claims a batch in one round trip, with one more when some of them found their elapse
    /// recorded skipped (taken over), and one when another node's claim of one of them committed
    /// while the statement waited on it: each claim's verdict, in order.
    private func claimConnected(_ claims: [(key: ClaimKey, runID: String)]) -> [ClaimVerdict] {
        guard let connection, connection.isOpen else { return claims.map { unavailable($0.key, runID: $0.runID) } }
        guard let offset = clockOffset, schedule.acceptsSkew(offset, uncertainty: clockUncertainty) else {
            return claims.map { _ in .unavailable(reason: "clock-skew") }
        }
        let input = Self.claimInput
        let keys = Self.arrays(of: claims)
        let sql = """
            WITH input AS (\(input)),
            won AS (
                INSERT INTO \(table) (job, elapse, attempt, node, instance, run_id, lease_until)
                SELECT job, 'epoch'::timestamptz + elapse::bigint * interval '1 microsecond', attempt::integer, $5, $6, run_id,
                       now() + $7 * interval '1 microsecond'
                  FROM input ORDER BY n
                ON CONFLICT DO NOTHING RETURNING run_id, fence)
            SELECT input.n, won.run_id IS NOT NULL, coalesce(holder.node, ''), coalesce(won.fence, 0),
                   coalesce(holder.result = $8 AND holder.lost_at IS NULL, false)
              FROM input LEFT JOIN won ON won.run_id = input.run_id
              LEFT JOIN \(table) AS holder ON holder.job = input.job AND holder.attempt = input.attempt::integer
                   AND holder.elapse = 'epoch'::timestamptz + input.elapse::bigint * interval '1 microsecond'
             ORDER BY input.n
            """
        do throws(FleetError) {
            let sent = fences?.now() ?? 0
            let rows = try query(connection, sql, keys + [.text(settings.node), .text(instance), .bigint(schedule.leaseMicroseconds),
                                                          .text(Self.skippedResult)])
            var verdicts = [ClaimVerdict?](repeating: nil, count: claims.count)
            var recordedSkipped: [Int] = []
            for row in rows {
                let index = Int(try row.int64(0)) - 1
                guard verdicts.indices.contains(index) else { continue }
                let holder = try row.text(2)
                if try row.bool(1) {
                    verdicts[index] = won(claims[index], token: try row.int64(3), sentAt: sent)
                } else if try row.bool(4) {
                    recordedSkipped.append(index)
                } else if !holder.isEmpty {
                    verdicts[index] = .taken(by: holder)
                }
            }
            // A row saying the elapse was skipped (written by a node that stopped) is no run: this
            // late claim takes it over and runs the elapse. One it lost to another node's is read below.
            for (position, token) in try takeOver(recordedSkipped.map { claims[$0] }, connection) {
                verdicts[recordedSkipped[position]] = won(claims[recordedSkipped[position]], token: token, sentAt: sent)
            }
            // Another node's claim committed while this statement waited on it: the statement's
            // snapshot predates that row, so a second statement reads who holds it.
            let unknown = verdicts.indices.filter { verdicts[$0] == nil }
            if !unknown.isEmpty {
                let holders = try query(connection, """
                    WITH input AS (\(input))
                    SELECT input.n, holder.node FROM input JOIN \(table) AS holder ON holder.job = input.job
                           AND holder.attempt = input.attempt::integer
                           AND holder.elapse = 'epoch'::timestamptz + input.elapse::bigint * interval '1 microsecond'
                    """, Self.arrays(of: unknown.map { claims[$0] }))
                for row in holders {
                    let position = Int(try row.int64(0)) - 1
                    if unknown.indices.contains(position) { verdicts[unknown[position]] = .taken(by: try row.text(1)) }
                }
            }
            return verdicts.map { $0 ?? .taken(by: "another node") }
        } catch {
            // Whether the claims committed is unknown (the connection may have died after the
            // commit): the runs are skipped, and the claims settled at the next connect.
            logger.warning("fleet claim of \(claims.count) elapse(s) (\(claims[0].key) first) failed: \(error.message)")
            drop()
            return claims.map { unavailable($0.key, runID: $0.runID) }
        }
    }

    /// The verdict on a claim this node won: it holds the run, whose fence lasts a lease from `sent`.
    private func won(_ claim: (key: ClaimKey, runID: String), token: Int64, sentAt sent: Int64) -> ClaimVerdict {
        held[claim.runID] = claim.key
        fence(claim.runID, until: schedule.fenceDeadline(sentAt: sent))
        return .won(token: token)
    }

    /// Takes over the rows of `claims`' elapses that still say they were skipped (no run, not
    /// lost): each becomes this node's claim, with a new fencing token. One round trip; returns
    /// the positions in `claims` taken over, with their tokens.
    private func takeOver(_ claims: [(key: ClaimKey, runID: String)], _ connection: PostgresConnection) throws(FleetError) -> [(Int, Int64)] {
        guard !claims.isEmpty else { return [] }
        let rows = try query(connection, """
            WITH input AS (\(Self.claimInput))
            UPDATE \(table) AS recorded SET node = $5, instance = $6, run_id = input.run_id, claimed_at = now(),
                   lease_until = now() + $7 * interval '1 microsecond', ended_at = NULL, result = NULL, fence = DEFAULT
              FROM input
             WHERE recorded.job = input.job AND recorded.attempt = input.attempt::integer
               AND recorded.elapse = 'epoch'::timestamptz + input.elapse::bigint * interval '1 microsecond'
               AND recorded.result = $8 AND recorded.lost_at IS NULL
            RETURNING input.n, recorded.fence
            """, Self.arrays(of: claims) + [.text(settings.node), .text(instance), .bigint(schedule.leaseMicroseconds), .text(Self.skippedResult)])
        var taken: [(Int, Int64)] = []
        for row in rows {
            let position = Int(try row.int64(0)) - 1
            if claims.indices.contains(position) { taken.append((position, try row.int64(1))) }
        }
        return taken
    }

    /// The result recorded for an elapse this node skipped because the database was unavailable
    /// (and the `run.skip` reason it logged).
    package static let skippedResult = "fleet-unavailable"

    /// Records the elapses skipped while the database was unavailable, in one transaction: a claim
    /// of this node's among them that did commit (its outcome was unknown) is ended as skipped, so
    /// that it is neither left to lapse into `lost` nor retried; every other skipped elapse that no
    /// node claimed gets a row saying it was skipped. An elapse another node claimed and ran keeps
    /// that node's row. Four round trips at most, whatever the count.
    ///
    /// At a beat, an elapse gets its row only once no node can still be about to claim it; younger
    /// ones wait for a later beat. When jobd stops (`stopping`), every one gets its row
    /// (``LeaseSchedule/recordsSkip(of:now:stopping:)``).
    private func recordSkipped(_ connection: PostgresConnection, stopping: Bool = false) throws(FleetError) {
        let pending = skipped.withLock { $0 }
        guard !pending.isEmpty else { return }
        let now = realtime().microseconds
        let ripe = pending.filter { schedule.recordsSkip(of: $0.key.elapse.microseconds, now: now, stopping: stopping) }
        let runIDs = PostgresParameter.textArray(pending.map(\.runID))
        try run(connection, "BEGIN")
        do throws(FleetError) {
            try run(connection, """
                UPDATE \(table) SET ended_at = now(), result = $3
                 WHERE node = $1 AND run_id = ANY($2) AND ended_at IS NULL AND lost_at IS NULL
                """, [.text(settings.node), runIDs, .text(Self.skippedResult)])
            if !ripe.isEmpty {
                try run(connection, """
                    INSERT INTO \(table) (job, elapse, attempt, node, instance, run_id, lease_until, ended_at, result)
                    SELECT job, 'epoch'::timestamptz + elapse::bigint * interval '1 microsecond', attempt::integer,
                           $5, $6, run_id, now(), now(), $7
                      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS skipped(job, elapse, attempt, run_id)
                    ON CONFLICT DO NOTHING
                    """, Self.arrays(of: ripe.map { ($0.key, $0.runID) }) + [.text(settings.node), .text(instance), .text(Self.skippedResult)])
            }
            try run(connection, "COMMIT")
        } catch {
            try? run(connection, "ROLLBACK")
            throw error
        }
        guard !ripe.isEmpty else { return }
        let recorded = Set(ripe)
        skipped.withLock { $0.removeAll(where: recorded.contains) }
        logger.info("fleet: recorded \(ripe.count) elapse(s) skipped while the database was unavailable")
    }

    /// Claims as the parameters `$1` to `$4` of an `unnest($1::text[], $2::text[], $3::text[],
    /// $4::text[])`: their jobs, elapses (microseconds), attempts and run ids, in order.
    private static func arrays(of claims: [(key: ClaimKey, runID: String)]) -> [PostgresParameter] {
        [.textArray(claims.map(\.key.job)), .textArray(claims.map { String($0.key.elapse.microseconds) }),
         .textArray(claims.map { String($0.key.attempt) }), .textArray(claims.map(\.runID))]
    }

    /// A claim's key as the first three parameters, `$1` to `$3`, which ``keyCondition`` reads.
    private static func parameters(of key: ClaimKey) -> [PostgresParameter] {
        [.text(key.job), .bigint(key.elapse.microseconds), .integer(Int32(clamping: key.attempt))]
    }

    /// The row of the claim whose key is bound as `$1` to `$3` (``parameters(of:)``).
    private static let keyCondition =
        "job = $1 AND elapse = 'epoch'::timestamptz + $2 * interval '1 microsecond' AND attempt = $3"

    /// Records the end of a run this node claimed (a run id it does not hold is ignored). Written
    /// now if it can be, else at the next beat; its lease is renewed until then. `endedAt`: when a
    /// run its fence stopped really ended (this node's wall clock), else now.
    package func finish(runID: String, result: String, endedAt: RealtimeInstant? = nil) async {
        reportEnd(runID: runID, result: result, endedAt: endedAt)
        await writeReportedEnds()
    }

    /// Queues a run's end for ``writeReportedEnds()`` (or jobd's stop) to write: at once, without
    /// waiting for the database's thread.
    package nonisolated func reportEnd(runID: String, result: String, endedAt: RealtimeInstant? = nil) {
        reportedEnds.withLock { $0.append((runID, PendingEnd(result: result, endedAt: endedAt))) }
    }

    /// Writes the ends reported so far, if it can now, else at the next beat.
    package func writeReportedEnds() async {
        takeReportedEnds()
        try? writeEnds()
    }

    private func takeReportedEnds() {
        let ends = reportedEnds.withLock { ends in
            defer { ends = [] }
            return ends
        }
        for (runID, end) in ends {
            if fenced.removeValue(forKey: runID) != nil { fences?.remove(runID) }
            guard held[runID] != nil else { continue }
            pendingEnds[runID] = end
        }
    }

    /// Takes over the claim `key` of run `runID`, which an earlier jobd of this node claimed and this
    /// one adopted (issue 36): renewed now, if connected, and at every beat after, as a claim of
    /// its own, and its end recorded the same way. Its fence keeps the deadline the earlier jobd set
    /// until the renewal; a claim whose deadline passed, or that the database no longer holds open
    /// for this node (another node recorded it lost, or it ended), loses the lease: its fence stops
    /// the run, and the journal says why. Returns whether the run holds the claim.
    @discardableResult
    package func adopt(runID: String, key: ClaimKey) async -> Bool {
        held[runID] = key
        guard let fences else { return true }
        fenced[runID] = fences.read(runID) ?? 0
        guard fenced[runID] != 0 else {
            let job = key.job
            logger.warning("fleet: adopted run \(runID) of \(job) has no fence left: it no longer holds its lease",
                           metadata: ["JOB": .string(job), "JOBD_RUN_ID": .string(runID), "JOBD_REASON": .string("lease-lost")])
            fences.extend(runID, 0)
            return false
        }
        guard let connection, connection.isOpen else { return true }
        let sent = fences.now()
        if let deadline = fenced[runID], deadline <= sent {
            revoke(runID, because: "no jobd renewed it before its deadline")
            return false
        }
        do throws(FleetError) {
            let rows = try query(connection, """
                UPDATE \(table) SET lease_until = now() + $6 * interval '1 microsecond'
                 WHERE \(Self.keyCondition) AND run_id = $4 AND node = $5 AND ended_at IS NULL AND lost_at IS NULL
                RETURNING run_id
                """, Self.parameters(of: key) + [.text(runID), .text(settings.node), .bigint(schedule.leaseMicroseconds)])
            guard !rows.isEmpty else {
                revoke(runID, because: "the database holds no open claim of node \(settings.node) for it")
                return false
            }
        } catch {
            // Not renewed now: the next beat renews it (or revokes it once its deadline passed).
            _ = dropping(error)
            return true
        }
        fence(runID, until: schedule.fenceDeadline(sentAt: sent))
        logger.info("fleet: adopted run \(runID) of \(key) keeps its claim: this jobd renews its lease",
                    metadata: ["JOB": .string(key.job), "JOBD_RUN_ID": .string(runID)])
        return true
    }

    /// Records the end (`result`) of run `runID`, whose claim `key` an earlier jobd of this node held
    /// and whose run this one does not follow (recorded abandoned): its claim is ended rather than
    /// left to lapse into `lost` and be retried elsewhere.
    package func release(runID: String, key: ClaimKey, result: String) async {
        held[runID] = key
        pendingEnds[runID] = PendingEnd(result: result, endedAt: nil)
        try? writeEnds()
    }

    // MARK: Fences

    /// Sets the deadline of a run's fence (kept at 0 once it lost the lease).
    private func fence(_ runID: String, until deadline: Int64) {
        guard let fences, fenced[runID] != 0 else { return }
        fenced[runID] = deadline
        fences.extend(runID, deadline)
    }

    /// A run this node no longer holds the lease of: its fence stops it now, and is never extended again.
    private func revoke(_ runID: String, because reason: String) {
        guard let fences, let deadline = fenced[runID], deadline != 0 else { return }
        fenced[runID] = 0
        fences.extend(runID, 0)
        let job = held[runID]?.job ?? "?"
        logger.warning("fleet: run \(runID) of \(job) no longer holds its lease (\(reason)): its fence stops it",
                       metadata: ["JOB": .string(job), "JOBD_RUN_ID": .string(runID), "JOBD_REASON": .string("lease-lost")])
    }

    /// Renews the leases this node holds and extends the fences of its runs by what the renewal
    /// proved: a run whose deadline passed before the renewal was sent (jobd stalled; its fence
    /// fired) and one whose row another node recorded lost lose the lease for good. One round trip.
    private func renewLeases(_ connection: PostgresConnection) throws(FleetError) {
        guard !held.isEmpty else { return }
        let sent = fences?.now() ?? 0
        for (runID, deadline) in fenced where deadline != 0 && deadline <= sent {
            revoke(runID, because: "jobd did not renew it before its deadline")
        }
        let rows = try query(connection, """
            WITH renewed AS (
                UPDATE \(table) SET lease_until = now() + $3 * interval '1 microsecond'
                 WHERE node = $1 AND run_id = ANY($2) AND ended_at IS NULL AND lost_at IS NULL
                RETURNING run_id)
            SELECT run_id, NULL::text FROM renewed
            UNION ALL
            SELECT run_id, lost_by FROM \(table) WHERE node = $1 AND run_id = ANY($2) AND lost_at IS NOT NULL
            """, [.text(settings.node), .textArray(Array(held.keys)), .bigint(schedule.leaseMicroseconds)])
        for row in rows {
            let runID = try row.text(0)
            if let lostBy = try row.optionalText(1) {
                revoke(runID, because: "node \(lostBy) recorded it lost")
            } else if fenced[runID] != nil {
                fence(runID, until: schedule.fenceDeadline(sentAt: sent))
            }
        }
    }

    /// The run ids this node holds, for the tests and `jobctl fleet`.
    package var heldRuns: [String: ClaimKey] { held }

    private func writeEnds() throws(FleetError) {
        guard let connection, connection.isOpen else { return }
        for (runID, end) in pendingEnds.sorted(by: { $0.key < $1.key }) {
            guard let key = held[runID] else { pendingEnds[runID] = nil; continue }
            // A run recorded lost keeps that record: its real end goes to columns of its own.
            // `$6`: when it ended, on the database's clock (-1: now).
            let endedAt = "(CASE WHEN $6 < 0 THEN now() ELSE 'epoch'::timestamptz + $6 * interval '1 microsecond' END)"
            let sql = """
                UPDATE \(table) SET
                       ended_at = CASE WHEN lost_at IS NULL THEN \(endedAt) ELSE ended_at END,
                       result = CASE WHEN lost_at IS NULL THEN $5 ELSE result END,
                       run_ended_at = CASE WHEN lost_at IS NULL THEN run_ended_at ELSE \(endedAt) END,
                       run_result = CASE WHEN lost_at IS NULL THEN run_result ELSE $5 END
                 WHERE \(Self.keyCondition) AND run_id = $4
                """
            let databaseTime = end.endedAt.map { $0.microseconds + (clockOffset ?? 0) } ?? -1
            do throws(FleetError) {
                try run(connection, sql, Self.parameters(of: key) + [.text(runID), .text(end.result), .bigint(databaseTime)])
            } catch {
                throw dropping(error)
            }
            pendingEnds[runID] = nil
            held[runID] = nil
        }
    }

    // MARK: Beat

    /// What one beat found.
    package struct BeatReport: Sendable {
        /// The database's clock minus this node's, in microseconds.
        package var clockOffset: Int64
        /// Claims of other nodes whose lease lapsed, which this node recorded `lost`.
        package var lost: [LostClaim]
        /// How far `clockOffset` may be wrong: half the round trip that measured it.
        package var clockUncertainty: Int64 = 0
        /// Claims removed as older than `MaxRetentionSec=` by this beat (it looks once an hour).
        package var pruned = 0
    }

    /// A run recorded `lost`.
    package struct LostClaim: Sendable, Hashable {
        package var key: ClaimKey
        package var node: String
        package var runID: String
    }

    /// Heartbeat (and clock reading), pending ends, lease renewal of the runs this node holds, and
    /// the claims whose lease lapsed recorded `lost`: four round trips at most.
    package func beat() async throws(FleetError) -> BeatReport {
        guard let connection, connection.isOpen else { throw FleetError(.connection, "not connected") }
        do throws(FleetError) {
            let before = realtime().microseconds
            let rows = try query(connection, """
                INSERT INTO \(nodes) (node, instance) VALUES ($1, $2)
                ON CONFLICT (node, instance) DO UPDATE SET heartbeat_at = now()
                RETURNING (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
                """, [.text(settings.node), .text(instance)])
            let after = realtime().microseconds
            let database = try rows.first?.int64(0) ?? after
            let offset = LeaseSchedule.clockOffset(database: database, localBefore: before, localAfter: after)
            clockOffset = offset
            clockUncertainty = max(0, after - before) / 2
            try writeEnds()
            try recordSkipped(connection)
            try renewLeases(connection)
            let lapsed = try query(connection, """
                UPDATE \(table) SET lost_at = now(), lost_by = $1, result = 'lost'
                 WHERE ended_at IS NULL AND lost_at IS NULL AND lease_until < now()
                RETURNING job, (extract(epoch FROM elapse) * 1000000)::bigint, attempt, node, run_id
                """, [.text(settings.node)])
            var lost: [LostClaim] = []
            for row in lapsed {
                lost.append(LostClaim(key: try Self.key(row, job: 0, elapse: 1, attempt: 2), node: try row.text(3), runID: try row.text(4)))
            }
            var report = BeatReport(clockOffset: offset, lost: lost)
            report.clockUncertainty = clockUncertainty
            let now = realtime()
            if !settings.retention.isInfinite, lastPrune.map({ now.microseconds - $0.microseconds >= Self.pruneInterval }) ?? true {
                report.pruned = try prune(connection)
                lastPrune = now
            }
            return report
        } catch {
            throw dropping(error)
        }
    }

    /// How often a node removes old claims: once an hour (microseconds), and at its first beat.
    static let pruneInterval: Int64 = 3_600_000_000

    /// Removes the claims of elapses older than `MaxRetentionSec=` that have ended (or were lost),
    /// except each job's latest claim, which `Persistent=` counts from (`lastElapses(of:)`), and the
    /// nodes' starts whose last heartbeat is older. Every node does it; the deletes agree. Returns
    /// how many claims went.
    private func prune(_ connection: PostgresConnection) throws(FleetError) -> Int {
        let retention: [PostgresParameter] = [.bigint(Int64(clamping: settings.retention.microseconds))]
        let rows = try query(connection, """
            WITH gone AS (
                DELETE FROM \(table) AS old
                 WHERE old.elapse < now() - $1 * interval '1 microsecond'
                   AND (old.ended_at IS NOT NULL OR old.lost_at IS NOT NULL)
                   AND EXISTS (SELECT 1 FROM \(table) AS later WHERE later.job = old.job AND later.elapse > old.elapse)
                RETURNING 1)
            SELECT count(*)::bigint FROM gone
            """, retention)
        try run(connection, "DELETE FROM \(nodes) WHERE heartbeat_at < now() - $1 * interval '1 microsecond'", retention)
        return Int(try rows.first?.int64(0) ?? 0)
    }

    // MARK: Reading

    /// Every claim row, oldest elapse first (for `jobctl audit --fleet`). A reader migrates
    /// nothing: a schema still at version 1 (no node of this version connected yet) has no real
    /// ends of lost runs to read.
    package func claims() async throws(FleetError) -> [ClaimRecord] {
        let version = try select("SELECT coalesce(max(version), 0) FROM \(settings.schema).schema_version").first?.int64(0) ?? 0
        let realEnds = version >= 2 ? "(extract(epoch FROM run_ended_at) * 1000000)::bigint, run_result" : "NULL::bigint, NULL::text"
        let rows = try select("""
            SELECT job, (extract(epoch FROM elapse) * 1000000)::bigint, attempt, node, run_id,
                   (extract(epoch FROM claimed_at) * 1000000)::bigint,
                   (extract(epoch FROM lease_until) * 1000000)::bigint,
                   (extract(epoch FROM ended_at) * 1000000)::bigint, result,
                   (extract(epoch FROM lost_at) * 1000000)::bigint, lost_by, \(realEnds)
              FROM \(table) ORDER BY elapse, job, attempt
            """)
        var records: [ClaimRecord] = []
        for row in rows {
            var record = ClaimRecord(
                key: try Self.key(row, job: 0, elapse: 1, attempt: 2), node: try row.text(3), runID: try row.text(4),
                claimedAt: RealtimeInstant(microseconds: try row.int64(5)), leaseUntil: RealtimeInstant(microseconds: try row.int64(6)),
                endedAt: try row.optionalInt64(7).map(RealtimeInstant.init(microseconds:)), result: try row.optionalText(8),
                lostAt: try row.optionalInt64(9).map(RealtimeInstant.init(microseconds:)), lostBy: try row.optionalText(10))
            record.runEndedAt = try row.optionalInt64(11).map(RealtimeInstant.init(microseconds:))
            record.runResult = try row.optionalText(12)
            records.append(record)
        }
        return records
    }

    /// Every node's starts and last heartbeats, and the database's clock now.
    package func nodeSessions() async throws(FleetError) -> (sessions: [NodeSession], now: RealtimeInstant) {
        let rows = try select("""
            SELECT node, instance, (extract(epoch FROM started_at) * 1000000)::bigint,
                   (extract(epoch FROM heartbeat_at) * 1000000)::bigint,
                   (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
              FROM \(nodes) ORDER BY node, started_at
            """)
        var now = realtime()
        var sessions: [NodeSession] = []
        for row in rows {
            now = RealtimeInstant(microseconds: try row.int64(4))
            sessions.append(NodeSession(node: try row.text(0), instance: try row.text(1),
                                        startedAt: RealtimeInstant(microseconds: try row.int64(2)),
                                        heartbeatAt: RealtimeInstant(microseconds: try row.int64(3))))
        }
        return (sessions, now)
    }

    /// The latest elapse the fleet claimed of each of `jobs` (for `Persistent=` catch-up): one round trip.
    package func lastElapses(of jobs: [String]) async throws(FleetError) -> [String: RealtimeInstant] {
        guard !jobs.isEmpty else { return [:] }
        guard let connection, connection.isOpen else { throw FleetError(.connection, "not connected") }
        do throws(FleetError) {
            let rows = try query(connection, """
                SELECT job, (extract(epoch FROM max(elapse)) * 1000000)::bigint FROM \(table) WHERE job = ANY($1) GROUP BY job
                """, [.textArray(jobs)])
            var last: [String: RealtimeInstant] = [:]
            for row in rows { last[try row.text(0)] = RealtimeInstant(microseconds: try row.int64(1)) }
            return last
        } catch {
            throw dropping(error)
        }
    }

    /// The latest run of each job: the node that ran it and its result (for `jobctl list` and
    /// `status`). An elapse recorded as skipped had no run.
    package func lastRuns() async throws(FleetError) -> [String: ClaimRecord] {
        Dictionary(try await claims().filter { $0.result != Self.skippedResult }.map { ($0.key.job, $0) }) { $1 }
    }

    private func select(_ sql: String) throws(FleetError) -> [PostgresRow] {
        guard let connection, connection.isOpen else { throw FleetError(.connection, "not connected") }
        do throws(FleetError) {
            return try query(connection, sql)
        } catch {
            throw dropping(error)
        }
    }

    // MARK: Plumbing

    /// A claim's key from a row's columns `job`, `elapse` (microseconds) and `attempt`.
    private static func key(_ row: PostgresRow, job: Int, elapse: Int, attempt: Int) throws(FleetError) -> ClaimKey {
        ClaimKey(job: try row.text(job), elapse: RealtimeInstant(microseconds: try row.int64(elapse)),
                 attempt: UInt64(max(0, try row.int64(attempt))))
    }

    private func run(_ connection: PostgresConnection, _ sql: String, _ parameters: [PostgresParameter] = []) throws(FleetError) {
        _ = try query(connection, sql, parameters)
    }

    /// One statement, one round trip (counted), bounded by the schedule's operation timeout: a
    /// database that does not answer (a cable pulled, not a refused connection) must not hold claims up.
    private func query(_ connection: PostgresConnection, _ sql: String, _ parameters: [PostgresParameter] = []) throws(FleetError) -> [PostgresRow] {
        defer { roundTrips += 1 }
        return try connection.execute(sql, parameters, deadline: deadline())
    }

    /// When an operation starting now must have finished.
    private func deadline() -> ContinuousClock.Instant {
        .now + schedule.operationTimeout
    }

    static func describe(_ error: any Error) -> String {
        (error as? FleetError)?.message ?? String(describing: error)
    }
}

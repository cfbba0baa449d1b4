package import JobdCalendar
package import JobdConfig
package import Logging
import PostgresNIO

/// This node's link to the fleet's PostgreSQL: one connection, opened and migrated by
/// ``connect()``, used for claims, their ends, and the periodic ``beat()`` (heartbeat, lease
/// renewal, lost-run detection, clock check). Any failure drops the connection; the caller
/// reconnects (``FleetLink``). While there is no connection nothing is claimed: a claim answers
/// ``ClaimVerdict/unavailable(reason:)`` at once.
package actor FleetDatabase {
    package nonisolated let settings: FleetSettings
    package nonisolated let instance: String
    package nonisolated let schedule: LeaseSchedule
    private let password: String?
    private nonisolated let logger: Logger
    private let realtime: @Sendable () -> RealtimeInstant
    private var connection: PostgresConnection?
    private var nextConnectionID = 1
    /// The database's clock minus this node's, in microseconds, as the last beat measured it.
    package private(set) var clockOffset: Int64?
    /// How far ``clockOffset`` may be wrong: half the round trip that measured it.
    package private(set) var clockUncertainty: Int64 = 0
    /// Runs this node claimed and has not recorded the end of, by run id (`JOBD_RUN_ID`).
    private var held: [String: ClaimKey] = [:]
    /// Ends not yet written (the database was unreachable when the run ended), by run id.
    private var pendingEnds: [String: String] = [:]
    /// Round trips to the database so far (the benchmark's count).
    package private(set) var roundTrips = 0
    /// When this node last removed old claims (`MaxRetentionSec=`).
    private var lastPrune: RealtimeInstant?

    /// A logger that drops everything, for readers such as jobctl.
    package static let silent = Logger(label: "jobd-fleet") { _ in SwiftLogNoOpLogHandler() }

    package init(
        settings: FleetSettings, password: String?, instance: String, logger: Logger = FleetDatabase.silent,
        realtime: @escaping @Sendable () -> RealtimeInstant
    ) {
        self.settings = settings
        self.password = password
        self.instance = instance
        self.logger = logger
        self.realtime = realtime
        self.schedule = LeaseSchedule(leaseMicroseconds: Int64(settings.lease.microseconds),
                                      maxSkewMicroseconds: Int64(settings.maxClockSkew.microseconds))
    }

    package var isConnected: Bool { connection.map { !$0.isClosed } ?? false }
    private nonisolated var table: String { settings.schema + ".claims" }
    private nonisolated var nodes: String { settings.schema + ".nodes" }

    // MARK: Connection

    /// Opens the connection, migrates the schema, and sends a first heartbeat.
    @discardableResult
    package func connect() async throws(FleetError) -> BeatReport {
        try await open(migrating: true)
        return try await beat()
    }

    /// Opens the connection to read (`jobctl fleet`, `jobctl audit --fleet`): no migration, no
    /// heartbeat, so that a reader never counts as a node.
    package func connectToRead() async throws(FleetError) {
        try await open(migrating: false)
    }

    private func open(migrating: Bool) async throws(FleetError) {
        drop()
        var configuration = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: password,
            database: settings.database, tls: try tls())
        configuration.options.connectTimeout = .microseconds(schedule.operationTimeoutMicroseconds)
        if settings.tls == .verifyFull { configuration.options.tlsServerName = settings.host }
        let id = nextConnectionID
        nextConnectionID += 1
        let settings = configuration
        do {
            let opened = try await bounded { try await PostgresConnection.connect(configuration: settings, id: id, logger: self.logger) }
            connection = opened
            if migrating { try await migrate(opened) }
        } catch {
            throw dropping(error)
        }
    }

    /// After a statement failed: the connection is dropped (the next beat opens it again), and the
    /// error is said as a ``FleetError`` (one already, such as a timeout, as it is).
    private func dropping(_ error: any Error) -> FleetError {
        drop()
        return error as? FleetError ?? FleetError(.connection, Self.describe(error))
    }

    /// Closes the connection (it is reopened by the next ``connect()``).
    package func drop() {
        guard let closing = connection else { return }
        connection = nil
        // A connection must be closed before it is released: the callback holds it until then.
        closing.close().whenComplete { _ in withExtendedLifetime(closing) {} }
    }

    /// jobd's stop: the ends of the runs it stopped are written (connecting again if need be, as
    /// their tasks may have been cancelled mid-write), then the connection is closed. Without this
    /// the leases of runs stopped at shutdown would lapse into `lost`, and be retried elsewhere.
    package func shutdown() async {
        if !pendingEnds.isEmpty {
            if !isConnected { try? await open(migrating: false) }
            try? await writeEnds()
        }
        await close()
    }

    /// Closes the connection and waits until it is closed (a reader's last act before it exits).
    package func close() async {
        guard let closing = connection else { return }
        connection = nil
        try? await closing.close()
    }

    private func tls() throws(FleetError) -> PostgresConnection.Configuration.TLS {
        switch settings.tls {
        case .disable:
            return .disable
        case .require, .verifyFull:
            var tls = TLSConfiguration.makeClientConfiguration()
            if settings.tls == .require {
                tls.certificateVerification = .none
            } else {
                tls.certificateVerification = .fullVerification
                if let root = settings.rootCertificate { tls.trustRoots = .file(root) }
            }
            do {
                return .require(try NIOSSLContext(configuration: tls))
            } catch {
                throw FleetError(.tls, "TLS: \(error)")
            }
        }
    }

    private func migrate(_ connection: PostgresConnection) async throws {
        let schema = settings.schema
        try await run(connection, "BEGIN")
        do {
            try await run(connection, "SELECT pg_advisory_xact_lock(hashtext('jobd-fleet-' || current_database() || '-\(schema)'))")
            try await run(connection, "CREATE TABLE IF NOT EXISTS \(schema).schema_version (version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
            let rows = try await query(connection, "SELECT coalesce(max(version), 0) FROM \(schema).schema_version")
            var current = 0
            for row in rows { current = Int(try row.decode(Int32.self)) }
            guard current <= FleetSchema.version else {
                throw FleetError(.schema, "the fleet schema \(schema) is at version \(current), newer than this jobd's \(FleetSchema.version): upgrade jobd")
            }
            for migration in current..<FleetSchema.version {
                for statement in FleetSchema.statements(migration, schema: schema) { try await run(connection, statement) }
                try await run(connection, "INSERT INTO \(schema).schema_version (version) VALUES (\(migration + 1))")
                logger.notice("fleet schema \(schema) migrated to version \(migration + 1)")
            }
            try await run(connection, "COMMIT")
        } catch {
            try? await run(connection, "ROLLBACK")
            throw error
        }
    }

    // MARK: Claims

    /// Claims `key` for the run `runID`: one round trip, `INSERT … ON CONFLICT DO NOTHING`.
    package func claim(_ key: ClaimKey, runID: String) async -> ClaimVerdict {
        guard let connection, !connection.isClosed else { return .unavailable(reason: "fleet-unavailable") }
        guard let offset = clockOffset, schedule.acceptsSkew(offset, uncertainty: clockUncertainty) else {
            return .unavailable(reason: "clock-skew")
        }
        var binds = Self.bindings(of: key)
        binds.append(settings.node)
        binds.append(instance)
        binds.append(runID)
        binds.append(schedule.leaseMicroseconds)
        let sql = """
            WITH won AS (
                INSERT INTO \(table) (job, elapse, attempt, node, instance, run_id, lease_until)
                VALUES ($1, 'epoch'::timestamptz + $2 * interval '1 microsecond', $3, $4, $5, $6,
                        now() + $7 * interval '1 microsecond')
                ON CONFLICT DO NOTHING RETURNING node)
            SELECT true, node FROM won
            UNION ALL
            SELECT false, node FROM \(table) WHERE \(Self.keyCondition) AND NOT EXISTS (SELECT 1 FROM won)
            """
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        do {
            let rows = try await bounded { try await connection.query(query, logger: self.logger).collect() }
            roundTrips += 1
            guard let row = rows.first else {
                // Another node's claim committed while this statement waited on it: the statement's
                // snapshot predates that row, so a second statement reads who holds it.
                let holder = PostgresQuery(
                    unsafeSQL: "SELECT node FROM \(table) WHERE \(Self.keyCondition)", binds: Self.bindings(of: key))
                let holders = try await bounded { try await connection.query(holder, logger: self.logger).collect() }
                roundTrips += 1
                return .taken(by: try holders.first?.decode(String.self) ?? "another node")
            }
            let (won, node) = try row.decode((Bool, String).self)
            if won {
                held[runID] = key
                return .won
            }
            return .taken(by: node)
        } catch {
            logger.warning("fleet claim of \(key) failed: \(Self.describe(error))")
            drop()
            return .unavailable(reason: "fleet-unavailable")
        }
    }

    /// A claim's key as the first three parameters, `$1` to `$3`, which ``keyCondition`` reads.
    private static func bindings(of key: ClaimKey) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(key.job)
        binds.append(key.elapse.microseconds)
        binds.append(Int32(clamping: key.attempt))
        return binds
    }

    /// The row of the claim whose key is bound as `$1` to `$3` (``bindings(of:)``).
    private static let keyCondition =
        "job = $1 AND elapse = 'epoch'::timestamptz + $2 * interval '1 microsecond' AND attempt = $3"

    /// Records the end of a run this node claimed (a run id it does not hold is ignored). Written
    /// now if it can be, else at the next beat; its lease is renewed until then.
    package func finish(runID: String, result: String) async {
        guard held[runID] != nil else { return }
        pendingEnds[runID] = result
        try? await writeEnds()
    }

    /// The run ids this node holds, for the tests and `jobctl fleet`.
    package var heldRuns: [String: ClaimKey] { held }

    private func writeEnds() async throws {
        guard let connection, !connection.isClosed else { return }
        for (runID, result) in pendingEnds.sorted(by: { $0.key < $1.key }) {
            guard let key = held[runID] else { pendingEnds[runID] = nil; continue }
            var binds = Self.bindings(of: key)
            binds.append(runID)
            binds.append(result)
            let sql = "UPDATE \(table) SET ended_at = now(), result = $5 WHERE \(Self.keyCondition) AND run_id = $4"
            let query = PostgresQuery(unsafeSQL: sql, binds: binds)
            do {
                _ = try await bounded { try await connection.query(query, logger: self.logger).collect() }
                roundTrips += 1
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
        guard let connection, !connection.isClosed else { throw FleetError(.connection, "not connected") }
        do {
            let before = realtime().microseconds
            var binds = PostgresBindings()
            binds.append(settings.node)
            binds.append(instance)
            let heartbeat = PostgresQuery(unsafeSQL: """
                INSERT INTO \(nodes) (node, instance) VALUES ($1, $2)
                ON CONFLICT (node, instance) DO UPDATE SET heartbeat_at = now()
                RETURNING (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
                """, binds: binds)
            let rows = try await bounded { try await connection.query(heartbeat, logger: self.logger).collect() }
            let after = realtime().microseconds
            roundTrips += 1
            let database = try rows.first?.decode(Int64.self) ?? after
            let offset = LeaseSchedule.clockOffset(database: database, localBefore: before, localAfter: after)
            clockOffset = offset
            clockUncertainty = max(0, after - before) / 2
            try await writeEnds()
            if !held.isEmpty {
                var renew = PostgresBindings()
                renew.append(settings.node)
                renew.append(Array(held.keys))
                renew.append(schedule.leaseMicroseconds)
                let renewal = PostgresQuery(unsafeSQL: """
                    UPDATE \(table) SET lease_until = now() + $3 * interval '1 microsecond'
                     WHERE node = $1 AND run_id = ANY($2) AND ended_at IS NULL AND lost_at IS NULL
                    """, binds: renew)
                _ = try await bounded { try await connection.query(renewal, logger: self.logger).collect() }
                roundTrips += 1
            }
            var sweep = PostgresBindings()
            sweep.append(settings.node)
            let lapse = PostgresQuery(unsafeSQL: """
                UPDATE \(table) SET lost_at = now(), lost_by = $1, result = 'lost'
                 WHERE ended_at IS NULL AND lost_at IS NULL AND lease_until < now()
                RETURNING job, (extract(epoch FROM elapse) * 1000000)::bigint, attempt, node, run_id
                """, binds: sweep)
            let lapsed = try await bounded { try await connection.query(lapse, logger: self.logger).collect() }
            roundTrips += 1
            var lost: [LostClaim] = []
            for row in lapsed {
                let (job, elapse, attempt, node, runID) = try row.decode((String, Int64, Int32, String, String).self)
                lost.append(LostClaim(key: ClaimKey(job: job, elapse: RealtimeInstant(microseconds: elapse), attempt: UInt64(max(0, attempt))),
                                      node: node, runID: runID))
            }
            var report = BeatReport(clockOffset: offset, lost: lost)
            report.clockUncertainty = clockUncertainty
            let now = realtime()
            if !settings.retention.isInfinite, lastPrune.map({ now.microseconds - $0.microseconds >= Self.pruneInterval }) ?? true {
                report.pruned = try await prune(connection)
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
    private func prune(_ connection: PostgresConnection) async throws -> Int {
        var binds = PostgresBindings()
        binds.append(Int64(clamping: settings.retention.microseconds))
        let claims = PostgresQuery(unsafeSQL: """
            WITH gone AS (
                DELETE FROM \(table) AS old
                 WHERE old.elapse < now() - $1 * interval '1 microsecond'
                   AND (old.ended_at IS NOT NULL OR old.lost_at IS NOT NULL)
                   AND EXISTS (SELECT 1 FROM \(table) AS later WHERE later.job = old.job AND later.elapse > old.elapse)
                RETURNING 1)
            SELECT count(*)::bigint FROM gone
            """, binds: binds)
        let rows = try await bounded { try await connection.query(claims, logger: self.logger).collect() }
        roundTrips += 1
        let starts = PostgresQuery(unsafeSQL: """
            DELETE FROM \(nodes) WHERE heartbeat_at < now() - $1 * interval '1 microsecond'
            """, binds: binds)
        _ = try await bounded { try await connection.query(starts, logger: self.logger).collect() }
        roundTrips += 1
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }

    // MARK: Reading

    /// Every claim row, oldest elapse first (for `jobctl audit --fleet`).
    package func claims() async throws(FleetError) -> [ClaimRecord] {
        let rows = try await select("""
            SELECT job, (extract(epoch FROM elapse) * 1000000)::bigint, attempt, node, run_id,
                   (extract(epoch FROM claimed_at) * 1000000)::bigint,
                   (extract(epoch FROM lease_until) * 1000000)::bigint,
                   (extract(epoch FROM ended_at) * 1000000)::bigint, result,
                   (extract(epoch FROM lost_at) * 1000000)::bigint, lost_by
              FROM \(table) ORDER BY elapse, job, attempt
            """)
        do {
            return try rows.map { row in
                let (job, elapse, attempt, node, runID, claimed, lease, ended, result, lostAt, lostBy) = try row.decode(
                    (String, Int64, Int32, String, String, Int64, Int64, Int64?, String?, Int64?, String?).self)
                return ClaimRecord(
                    key: ClaimKey(job: job, elapse: RealtimeInstant(microseconds: elapse), attempt: UInt64(max(0, attempt))),
                    node: node, runID: runID, claimedAt: RealtimeInstant(microseconds: claimed),
                    leaseUntil: RealtimeInstant(microseconds: lease), endedAt: ended.map(RealtimeInstant.init(microseconds:)),
                    result: result, lostAt: lostAt.map(RealtimeInstant.init(microseconds:)), lostBy: lostBy)
            }
        } catch {
            throw FleetError(.connection, Self.describe(error))
        }
    }

    /// Every node's starts and last heartbeats, and the database's clock now.
    package func nodeSessions() async throws(FleetError) -> (sessions: [NodeSession], now: RealtimeInstant) {
        let rows = try await select("""
            SELECT node, instance, (extract(epoch FROM started_at) * 1000000)::bigint,
                   (extract(epoch FROM heartbeat_at) * 1000000)::bigint,
                   (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
              FROM \(nodes) ORDER BY node, started_at
            """)
        do {
            var now = realtime()
            let sessions = try rows.map { row in
                let (node, instance, started, heartbeat, databaseNow) = try row.decode((String, String, Int64, Int64, Int64).self)
                now = RealtimeInstant(microseconds: databaseNow)
                return NodeSession(node: node, instance: instance, startedAt: RealtimeInstant(microseconds: started),
                                   heartbeatAt: RealtimeInstant(microseconds: heartbeat))
            }
            return (sessions, now)
        } catch {
            throw FleetError(.connection, Self.describe(error))
        }
    }

    /// The latest elapse the fleet claimed of each of `jobs` (for `Persistent=` catch-up): one round trip.
    package func lastElapses(of jobs: [String]) async throws(FleetError) -> [String: RealtimeInstant] {
        guard !jobs.isEmpty else { return [:] }
        guard let connection, !connection.isClosed else { throw FleetError(.connection, "not connected") }
        var binds = PostgresBindings()
        binds.append(jobs)
        let query = PostgresQuery(unsafeSQL: """
            SELECT job, (extract(epoch FROM max(elapse)) * 1000000)::bigint FROM \(table) WHERE job = ANY($1) GROUP BY job
            """, binds: binds)
        do {
            let rows = try await bounded { try await connection.query(query, logger: self.logger).collect() }
            roundTrips += 1
            var last: [String: RealtimeInstant] = [:]
            for row in rows {
                let (job, elapse) = try row.decode((String, Int64).self)
                last[job] = RealtimeInstant(microseconds: elapse)
            }
            return last
        } catch {
            throw dropping(error)
        }
    }

    /// The latest run of each job: the node that ran it and its result (for `jobctl list` and `status`).
    package func lastRuns() async throws(FleetError) -> [String: ClaimRecord] {
        Dictionary(try await claims().map { ($0.key.job, $0) }) { $1 }
    }

    private func select(_ sql: String) async throws(FleetError) -> [PostgresRow] {
        guard let connection, !connection.isClosed else { throw FleetError(.connection, "not connected") }
        do {
            return try await query(connection, sql)
        } catch {
            throw dropping(error)
        }
    }

    // MARK: Plumbing

    private func run(_ connection: PostgresConnection, _ sql: String) async throws {
        _ = try await query(connection, sql)
    }

    private func query(_ connection: PostgresConnection, _ sql: String) async throws -> [PostgresRow] {
        defer { roundTrips += 1 }
        return try await bounded { try await connection.query(PostgresQuery(unsafeSQL: sql), logger: self.logger).collect() }
    }

    /// Runs `body`, failing with a timeout after the schedule's operation bound: a database that does
    /// not answer (a cable pulled, not a refused connection) must not hold claims up.
    private nonisolated func bounded<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let limit = schedule.operationTimeout
        return try await withThrowingTaskGroup(of: Value.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw FleetError(.timeout, "no answer from the database within \(limit)")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? FleetError { return error.message }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
        }
        return String(describing: error)
    }
}

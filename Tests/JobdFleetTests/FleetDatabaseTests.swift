import Foundation
import JobdCalendar
import JobdConfig
import JobdFleet
import JobdTestKit
import Testing

/// The fleet's database link against a real PostgreSQL: claims, TLS with certificate verification,
/// and the password file's rules.
@Suite(.serialized)
struct FleetDatabaseTests {
    /// A CA, a server certificate for localhost and 127.0.0.1 signed by it, and an unrelated CA.
    final class Certificates {
        let directory = NSTemporaryDirectory() + "jobd-tls-" + UUID().uuidString

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: directory + "/san", atomically: true, encoding: .utf8)
            for ca in ["ca", "other-ca"] {
                try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(ca).key", "-out", "\(ca).pem",
                             "-days", "2", "-subj", "/CN=jobd test \(ca)"])
            }
            try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
            try openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                         "-out", "server.crt", "-days", "2", "-extfile", "san"])
            if geteuid() == 0 {
                _ = try CapturedProcess.run("/bin/chown", ["-R", "nobody:nogroup", directory])
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + "/server.key")
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        private func openssl(_ arguments: [String]) throws {
            let result = try CapturedProcess.run("/bin/sh", ["-c", "cd '\(directory)' && exec openssl \"$@\"", "openssl"] + arguments)
            guard result.status == 0 else { throw TemporaryPostgres.Failure(message: "openssl \(arguments): \(result.standardError)") }
        }
    }

    /// `Database=` for the role `user` of `postgres`'s `fleet` database with `query`, and a
    /// `PasswordFile=` that gives `password`.
    static func settings(_ postgres: TemporaryPostgres, host: String = "127.0.0.1", query: String = "sslmode=disable",
                         node: String = "a", password: String = "secret") throws -> FleetSettings {
        var settings = FleetSettings(database: postgres.connectionString(host: host, query: query), node: node)
        settings.passwordFile = try postgres.passwordFile(password, name: "pgpass-" + password)
        return settings
    }

    static func database(_ settings: FleetSettings) throws -> FleetDatabase {
        try FleetDatabase(settings: settings, instance: settings.node,
                          realtime: { RealtimeInstant(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000)) })
    }

    @Test func tlsVerifiesTheServersCertificate() async throws {
        let certificates = try Certificates()
        let postgres = try TemporaryPostgres(settings: [
            "ssl": "on", "ssl_cert_file": certificates.directory + "/server.crt", "ssl_key_file": certificates.directory + "/server.key",
        ])
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "secret")

        for host in ["localhost", "127.0.0.1"] {
            let verified = try Self.database(Self.settings(
                postgres, host: host, query: "sslmode=verify-full&sslrootcert=\(certificates.directory)/ca.pem"))
            try await verified.connect()
            #expect(await verified.usesTLS)
            #expect(await verified.claim(ClaimKey(job: "report-\(host)", elapse: RealtimeInstant(seconds: 1_800_000_000)), runID: "r1").isWon)
            await verified.close()
        }
        let elapse = RealtimeInstant(seconds: 1_800_000_000)

        let wrongCA = try Self.database(Self.settings(
            postgres, host: "localhost", query: "sslmode=verify-full&sslrootcert=\(certificates.directory)/other-ca.pem"))
        await #expect(throws: FleetError.self) { try await wrongCA.connect() }
        #expect(await wrongCA.claim(ClaimKey(job: "report-localhost", elapse: elapse), runID: "r2") == .unavailable(reason: "fleet-unavailable"))

        // Without sslmode=, jobd asks for verify-full against the system's CAs, which know not the test's CA.
        let byDefault = try Self.database(Self.settings(postgres, host: "localhost", query: ""))
        let refused = await #expect(throws: FleetError.self) { try await byDefault.connect() }
        #expect(refused?.message.contains("certificate") == true, "\(String(describing: refused))")

        // `require` encrypts without checking: any certificate will do.
        let unverified = try Self.database(Self.settings(postgres, host: "localhost", query: "sslmode=require", node: "b"))
        try await unverified.connect()
        #expect(await unverified.usesTLS)
        #expect(await unverified.claim(ClaimKey(job: "report-localhost", elapse: elapse), runID: "r3") == .taken(by: "a"))
        await unverified.close()
    }

    /// `MaxRetentionSec=`: ended claims of old elapses go, at a node's first beat and then once an
    /// hour; each job's latest claim stays (`Persistent=` counts from it), and so does a claim still open.
    @Test func oldClaimsAreRemovedButEachJobsLatestStays() async throws {
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "secret")
        var settings = try Self.settings(postgres)
        settings.retention = .seconds(30 * 86_400)
        let node = try Self.database(settings)
        _ = try await node.connect()
        let day: Int64 = 86_400, now = Int64(Date().timeIntervalSince1970)
        func run(_ job: String, daysAgo: Int64, ends: Bool = true) async {
            let runID = "\(job)-\(daysAgo)"
            #expect(await node.claim(ClaimKey(job: job, elapse: RealtimeInstant(seconds: now - daysAgo * day)), runID: runID).isWon)
            if ends { await node.finish(runID: runID, result: "success") }
        }
        await run("daily", daysAgo: 40)
        await run("daily", daysAgo: 35)
        await run("daily", daysAgo: 1)
        await run("yearly", daysAgo: 300)
        await run("stuck", daysAgo: 50, ends: false)
        await run("stuck", daysAgo: 2)
        // The ends are in the table: one a loaded machine let time out is written at the next
        // beat, as the node's link would make it (after connecting again if the timeout dropped it).
        if (try? await node.beat()) == nil { _ = try await node.connect() }

        // Another node starting: its first beat (at connect) looks.
        var otherSettings = settings
        otherSettings.node = "b"
        let other = try Self.database(otherSettings)
        #expect(try await other.connect().pruned == 2)
        func left() async throws -> [String] {
            try await node.claims().map { "\($0.key.job) \((now - $0.key.elapse.microseconds / 1_000_000) / day)" }.sorted()
        }
        #expect(try await left() == ["daily 1", "stuck 2", "stuck 50", "yearly 300"])

        // Not again within the hour.
        await run("daily", daysAgo: 45)
        #expect(try await other.beat().pruned == 0)
        #expect(try await left().contains("daily 45"))
        await other.shutdown()
        await node.shutdown()
    }

    /// An elapse a node skipped (no database) just before jobd stops gets its `fleet-unavailable`
    /// row at the stop, not a lease and twice the skew later (no later beat would write it); and
    /// that row keeps no other node from claiming the elapse late: the claim takes it over.
    @Test func anElapseSkippedJustBeforeTheStopIsRecordedAndALateClaimStillRunsIt() async throws {
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "secret")
        let settings = try Self.settings(postgres)
        let node = try Self.database(settings)
        let key = ClaimKey(job: "tick", elapse: RealtimeInstant(seconds: Int64(Date().timeIntervalSince1970)))
        #expect(await node.claim(key, runID: "skipped-run") == .unavailable(reason: FleetDatabase.skippedResult))
        _ = try await node.connect()
        #expect(try await node.claims().isEmpty, "too young to be recorded at a beat")
        await node.shutdown()

        var otherSettings = settings
        otherSettings.node = "b"
        let other = try Self.database(otherSettings)
        _ = try await other.connect()
        let recorded = try await other.claims()
        #expect(recorded.map { "\($0.key) \($0.node) \($0.runID) \($0.result ?? "open")" }
                == ["\(key) a skipped-run \(FleetDatabase.skippedResult)"])
        let late = await other.claim(key, runID: "late-run")
        #expect(late.isWon && late != .won(token: 0), "\(late)")
        await other.finish(runID: "late-run", result: "success")
        let claims = try await other.claims()
        #expect(claims.map { "\($0.key) \($0.node) \($0.runID) \($0.result ?? "open")" } == ["\(key) b late-run success"])
        let third = try Self.database({ var third = settings; third.node = "c"; return third }())
        _ = try await third.connect()
        #expect(await third.claim(key, runID: "third-run") == .taken(by: "b"), "a run, unlike a skip, is never taken over")
        await third.shutdown()
        await other.shutdown()
    }

    /// A run's end reported just before jobd stops, whose writing task never ran (the stop cancels
    /// the tasks not yet started), is written by the stop: the claim is the run's result, never a
    /// lease left to lapse into `lost` and be retried elsewhere. (A full CI run saw this once: a
    /// retried run ended, jobd stopped at once, and its claim had no result.)
    @Test func anEndReportedJustBeforeTheStopIsWrittenByTheStop() async throws {
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "secret")
        let node = try Self.database(try Self.settings(postgres))
        _ = try await node.connect()
        let key = ClaimKey(job: "tick", elapse: RealtimeInstant(seconds: Int64(Date().timeIntervalSince1970)))
        #expect(await node.claim(key, runID: "the-run").isWon)
        node.reportEnd(runID: "the-run", result: "success")
        #expect(try await node.claims().map { $0.result ?? "open" } == ["open"], "reported, not yet written")
        await node.shutdown()

        let reader = try Self.database(try Self.settings(postgres))
        try await reader.connectToRead()
        #expect(try await reader.claims().map { "\($0.runID) \($0.result ?? "open")" } == ["the-run success"])
        await reader.close()
    }

    @Test func aWrongPasswordIsAConnectionErrorAndClaimsWaitForNothing() async throws {
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "secret")
        let wrong = try Self.database(Self.settings(postgres, password: "not-it"))
        await #expect(throws: FleetError.self) { try await wrong.connect() }
        let tripsBefore = await wrong.roundTrips
        #expect(await wrong.claim(ClaimKey(job: "x", elapse: RealtimeInstant(seconds: 1)), runID: "r") == .unavailable(reason: "fleet-unavailable"))
        // Answered without a statement sent, or a try at connecting (the next test shows it
        // answers while the database's thread is stuck).
        #expect(await wrong.roundTrips == tripsBefore)
    }

    /// A listening socket on 127.0.0.1 that never accepts or answers (a hung host), and its port.
    static func hungServer() throws -> (fd: Int32, port: UInt16) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0 && listen(listener, 8) == 0 else {
            close(listener)
            throw TemporaryPostgres.Failure(message: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    /// A node of the hung server at `port` with `lease` (its operation bound is a third of it, 5 s at most).
    static func hungNode(_ port: UInt16, leaseSeconds: UInt64) throws -> FleetDatabase {
        var settings = FleetSettings(database: "postgresql://jobd@127.0.0.1:\(port)/fleet?sslmode=disable", node: "a")
        settings.lease = .seconds(leaseSeconds)
        return try Self.database(settings)
    }

    /// Waits, without blocking this task's thread (the connect may need it to start), until the
    /// hung server sees the connection: the database's thread is inside the connect then.
    static func waitForConnection(to listener: Int32) async throws {
        var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        let patience = ContinuousClock.now + .seconds(60)
        while poll(&waiting, 1, 0) == 0 {
            try #require(ContinuousClock.now < patience, "libpq never connected")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// While the database's thread is stuck connecting to a hung host, a claim answers at once: the
    /// test ends the hang (closing the server) only once the claim answered, and the connect then
    /// fails for that close, not at its bound. A claim that waited for the database's thread would
    /// see the connect end at its bound first. (Should a loaded machine delay this task past the
    /// bound, 5 s, the attempt proves nothing and is made again.)
    @Test func claimsAnswerAtOnceWhileTheConnectionHangs() async throws {
        var proven = false
        for attempt in 1...3 where !proven {
            let (listener, port) = try Self.hungServer()
            let node = try Self.hungNode(port, leaseSeconds: 30)
            async let connecting: Result<FleetDatabase.BeatReport, FleetError> = { () async -> Result<FleetDatabase.BeatReport, FleetError> in
                do throws(FleetError) { return .success(try await node.connect()) } catch { return .failure(error) }
            }()
            try await Self.waitForConnection(to: listener)
            #expect(await node.claim(ClaimKey(job: "x", elapse: RealtimeInstant(seconds: 1)), runID: "r") == .unavailable(reason: "fleet-unavailable"))
            close(listener)  // the connection in its backlog is reset, and the next refused
            guard case .failure(let failure) = await connecting else {
                Issue.record("connected to a server that never answers")
                return
            }
            proven = failure.code != .timeout
            print("HUNG-SERVER attempt \(attempt): the connect ended with \(failure.code): \(failure.message)")
        }
        #expect(proven, "in each attempt, the hung connect ended at its bound before the claim answered")
    }

    /// The connect to a hung host fails at the operation bound (a third of the lease), not before.
    @Test func aConnectionThatHangsFailsAtItsBound() async throws {
        let (listener, port) = try Self.hungServer()
        defer { close(listener) }
        let node = try Self.hungNode(port, leaseSeconds: 6)
        let start = ContinuousClock.now
        let outcome: Result<FleetDatabase.BeatReport, FleetError>
        do throws(FleetError) { outcome = .success(try await node.connect()) } catch { outcome = .failure(error) }
        let took = ContinuousClock.now - start
        guard case .failure(let failure) = outcome else {
            Issue.record("connected to a server that never answers")
            return
        }
        #expect(failure.code == .timeout, "\(failure)")
        // The bound runs from the connect's start, after `start`.
        #expect(took >= .seconds(2), "\(took)")
        print("HUNG-SERVER connect failed after \(took) (bound 2 s)")
    }

    /// A statement that waits (here on a lock another session holds) fails at the operation bound
    /// (a third of the lease, 0.5 s at least), and is cancelled on the server, not left waiting.
    @Test func aStatementThatWaitsIsBoundedAndCancelled() async throws {
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "secret")
        var settings = try Self.settings(postgres)
        settings.lease = TimeSpan(microseconds: 1_500_000)
        let node = try Self.database(settings)
        // Connecting (with SCRAM) may itself take longer than 0.5 s on a loaded machine: tried
        // again, as FleetLink does.
        var connected = false
        for _ in 1...10 where !connected {
            connected = (try? await node.connect()) != nil
            if !connected { try await Task.sleep(for: .milliseconds(200)) }
        }
        try #require(connected)
        // Another session holds the table's lock (its psql's output is kept, to say why if it does not).
        let holder = try DaemonProcess(absolutePath: "/usr/bin/psql", arguments: [
            "-h", postgres.directory, "-p", String(postgres.port), "-U", "postgres", "-d", "fleet", "-X", "-q", "-A", "-t",
            "-c", "BEGIN", "-c", "LOCK TABLE jobd.claims IN ACCESS EXCLUSIVE MODE", "-c", "SELECT pg_sleep(60)",
        ], environment: ["PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "10"])
        defer {
            _ = try? postgres.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()")
            _ = try? holder.waitForExit()
        }
        let locked = "SELECT count(*) FROM pg_locks WHERE relation = 'jobd.claims'::regclass AND mode = 'AccessExclusiveLock' AND granted"
        let patience = ContinuousClock.now + .seconds(60)
        while try postgres.psql(locked, database: "fleet") != "1", ContinuousClock.now < patience { try await Task.sleep(for: .milliseconds(100)) }
        let sessions = (try? postgres.psql("SELECT state, wait_event_type, query FROM pg_stat_activity")) ?? "unknown"
        try #require(try postgres.psql(locked, database: "fleet") == "1", "the holder took no lock: \(holder.lines); sessions: \(sessions)")

        let start = ContinuousClock.now
        #expect(await node.claim(ClaimKey(job: "x", elapse: RealtimeInstant(seconds: 1)), runID: "r") == .unavailable(reason: "fleet-unavailable"))
        let took = ContinuousClock.now - start
        // Not before the bound (0.5 s, from after `start`); the holder keeps its lock for a minute,
        // so a claim that waited for it would not be unavailable but won, or failed far later.
        #expect(took >= .milliseconds(500), "\(took)")
        print("STATEMENT-BOUND the claim gave up after \(took) (bound 0.5 s)")
        #expect(await !node.isConnected)
        // The statement is cancelled on the server, not left waiting for the lock.
        let waiting = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'jobd' AND wait_event_type = 'Lock'"
        try waitUntil(timeout: .seconds(60), "jobd's statement no longer waiting on the server") { try postgres.psql(waiting) == "0" }
    }

    /// `PasswordFile=` is libpq's `passfile`: the first line that matches the host, port, database
    /// and user gives the password. It must be readable by its owner, jobd's user, alone.
    @Test func thePasswordComesFromAPassfileReadableByItsOwnerAlone() async throws {
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "pa:ss")
        var settings = FleetSettings(
            database: "host=127.0.0.1 port=\(postgres.port) dbname=fleet user=jobd sslmode=disable", node: "a")
        settings.passwordFile = try postgres.passwordFile("", line: """
            # other databases first
            127.0.0.1:\(postgres.port):other:jobd:wrong
            127.0.0.1:\(postgres.port):fleet:jobd:pa\\:ss
            *:*:*:*:wrong
            """)
        let node = try Self.database(settings)
        try await node.connect()
        #expect(await node.claim(ClaimKey(job: "x", elapse: RealtimeInstant(seconds: 1)), runID: "r").isWon)
        await node.close()

        let path = try #require(settings.passwordFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let readable = await #expect(throws: FleetError.self) { try await Self.database(settings).connect() }
        #expect(readable?.code == .password && readable?.message.contains("chmod 0600") == true)

        settings.passwordFile = postgres.directory + "/no-such-file"
        let missing = await #expect(throws: FleetError.self) { try await Self.database(settings).connect() }
        #expect(missing?.code == .password)

        // No password at all: the server asks for one, libpq has none.
        settings.passwordFile = nil
        let none = await #expect(throws: FleetError.self) { try await Self.database(settings).connect() }
        #expect(none?.code == .connection)
    }

    /// A `PasswordFile=` of jobd before libpq, the password on its first line, still connects.
    @Test func aPasswordFileOfTheOlderFormatStillConnects() async throws {
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "se:cr:et")
        var settings = FleetSettings(database: "host=127.0.0.1 port=\(postgres.port) dbname=fleet user=jobd sslmode=disable", node: "a")
        settings.passwordFile = try postgres.passwordFile("", line: "se:cr:et")
        let node = try Self.database(settings)
        try await node.connect()
        #expect(await node.claim(ClaimKey(job: "x", elapse: RealtimeInstant(seconds: 1)), runID: "r").isWon)
        await node.close()
    }

    /// A user name with characters a URI must percent-encode (`@`, a space) reaches PostgreSQL decoded.
    @Test(arguments: ["a@b", "jobd user"])
    func aPercentEncodedUserName(user: String) async throws {
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: user, password: "secret")
        let encoded = user.replacing("@", with: "%40").replacing(" ", with: "%20")
        var settings = FleetSettings(database: postgres.connectionString(user: encoded), node: "a")
        settings.passwordFile = try postgres.passwordFile("", line: "*:*:*:\(user):secret")
        let node = try Self.database(settings)
        try await node.connect()
        #expect(await node.claim(ClaimKey(job: "x", elapse: RealtimeInstant(seconds: 1)), runID: "r").isWon)
        await node.close()
        #expect(try postgres.psql("SELECT node FROM jobd.claims", database: "fleet") == "a")
        #expect(try postgres.psql("SELECT tableowner FROM pg_tables WHERE schemaname = 'jobd' AND tablename = 'claims'", database: "fleet") == user)
    }
}

import Foundation
import Testing

/// A real PostgreSQL server for a test: Debian's `postgresql` package (scripts/setup --test installs
/// it), a new cluster made by `initdb` in a temporary directory and its server started on loopback
/// on a free port. PostgreSQL refuses to run as root, so under root the server runs as `nobody`.
/// The superuser `postgres` connects over the cluster's own Unix socket without a password; other
/// roles connect over TCP with theirs. Stopped (immediately) and removed when the value goes away.
package final class TemporaryPostgres: @unchecked Sendable {
    package let directory: String
    package let port: Int
    private let binaries: String
    private var server: DaemonProcess?

    /// Why PostgreSQL cannot be started here, or `nil` when its programs are installed.
    package static var unavailableReason: String? {
        binDirectory() == nil ? "PostgreSQL's server programs are not installed (scripts/setup --test installs postgresql)" : nil
    }

    /// Server settings beyond the defaults, as `-c NAME=VALUE` (such as `ssl=on`).
    private let serverSettings: [String: String]

    /// `settings` are passed to the server as `-c NAME=VALUE`; files they name must be readable by
    /// the server's user (`nobody` under root).
    package convenience init(settings: [String: String] = [:]) throws {
        try self.init(settings: settings) { server in
            try server.asServerUser("initdb", ["-D", server.directory + "/data", "-U", "postgres", "-A", "trust",
                                               "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"])
        }
    }

    /// A streaming standby of `primary`: a copy made with `pg_basebackup` (roles, databases and
    /// all), started in recovery on a port of its own, read-only until ``promote()``. It streams
    /// over `primary`'s Unix socket as its superuser.
    package convenience init(standbyOf primary: TemporaryPostgres) throws {
        try self.init(settings: primary.serverSettings) { server in
            try server.asServerUser("pg_basebackup", ["-h", primary.directory, "-p", String(primary.port), "-U", "postgres",
                                                      "-D", server.directory + "/data", "--write-recovery-conf",
                                                      "--wal-method=stream", "--checkpoint=fast", "--no-sync"])
        }
    }

    private init(settings: [String: String], makeCluster: (TemporaryPostgres) throws -> Void) throws {
        serverSettings = settings
        guard let binaries = Self.binDirectory() else {
            try Requirement.unmet(Self.unavailableReason ?? "")
            throw Failure(message: Self.unavailableReason ?? "")
        }
        self.binaries = binaries
        directory = "/tmp/jobd-pg-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        port = Self.freePort()
        if geteuid() == 0 {
            _ = try CapturedProcess.run("/bin/chown", ["nobody:nogroup", directory])
        }
        try makeCluster(self)
        try start()
    }

    deinit {
        try? stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the server (again) and waits until it accepts connections. The server is this
    /// process's child, not `pg_ctl`'s: Foundation's `Process` never sees a `pg_ctl` exit whose
    /// daemon inherited its descriptors.
    package func start() throws {
        let path = binaries + "/postgres"
        let arguments = ["-D", directory + "/data", "-p", String(port), "-k", directory, "-c", "listen_addresses=127.0.0.1",
                         "-c", "fsync=off", "-c", "max_connections=200"]
            + serverSettings.sorted { $0.key < $1.key }.flatMap { ["-c", "\($0.key)=\($0.value)"] }
        let server = geteuid() == 0
            ? try DaemonProcess(absolutePath: "/usr/bin/setpriv", arguments: ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", path] + arguments,
                                environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"])
            : try DaemonProcess(absolutePath: path, arguments: arguments, environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"])
        self.server = server
        try server.waitForLine(timeout: .seconds(60), "PostgreSQL ready") { $0.contains("ready to accept") }
    }

    /// Kills the server as a crashed machine would end it (`SIGKILL` to the postmaster): nothing is
    /// shut down, flushed or sent to a standby.
    package func kill() throws {
        guard let server else { return }
        server.signal(SIGKILL)
        _ = try server.waitForExit(timeout: .seconds(60))
        self.server = nil
    }

    /// Promotes a standby to a primary that accepts writes (`pg_ctl promote`, waiting until it does).
    package func promote() throws {
        try asServerUser("pg_ctl", ["promote", "-D", directory + "/data", "-w", "-t", "60"])
    }

    /// Stops the server at once (SIGQUIT, immediate shutdown: as a crash would, to clients).
    package func stop() throws {
        guard let server else { return }
        server.signal(SIGQUIT)
        _ = try server.waitForExit(timeout: .seconds(60))
        self.server = nil
    }

    /// Runs `sql` as the superuser in `database`; returns psql's unaligned, tuples-only output.
    @discardableResult
    package func psql(_ sql: String, database: String = "postgres") throws -> String {
        let result = try CapturedProcess.run("/usr/bin/psql", [
            "-h", directory, "-p", String(port), "-U", "postgres", "-d", database, "-X", "-A", "-t", "-q",
            "-v", "ON_ERROR_STOP=1", "-c", sql,
        ], environment: ["PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "10"])
        guard result.exitedNormally, result.status == 0 else {
            throw Failure(message: "psql failed (\(result.status)): \(result.standardError)")
        }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A database `name` with a login role `user` (password `password`) that owns only the schema
    /// `schema` in it: no other rights, as the README asks a fleet's role to have.
    package func createFleetDatabase(_ name: String, user: String, password: String, schema: String = "jobd") throws {
        // The role's name quoted, so that it may hold any character (`jobd user`, `a@b`).
        let role = "\"" + user.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
        try psql("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
        try psql("CREATE DATABASE \(name)")
        try psql("REVOKE ALL ON DATABASE \(name) FROM PUBLIC; GRANT CONNECT ON DATABASE \(name) TO \(role); "
                 + "REVOKE ALL ON SCHEMA public FROM PUBLIC; CREATE SCHEMA \(schema) AUTHORIZATION \(role)", database: name)
    }

    /// `Database=` for `user` on `database` over TCP to `host` (loopback), as a libpq URI with
    /// `query` (no TLS by default).
    package func connectionString(user: String = "jobd", database: String = "fleet", host: String = "127.0.0.1",
                                  query: String = "sslmode=disable") -> String {
        "postgresql://\(user)@\(host):\(port)/\(database)" + (query.isEmpty ? "" : "?" + query)
    }

    /// A libpq password file (`PasswordFile=`) in the cluster's directory, mode 0600, whose one
    /// line gives `password` for every host, port, database and user unless `line` says otherwise.
    package func passwordFile(_ password: String, line: String? = nil, name: String = "fleet.pgpass") throws -> String {
        let path = directory + "/" + name
        guard FileManager.default.createFile(atPath: path, contents: Data(((line ?? "*:*:*:*:" + password) + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw Failure(message: "cannot write \(path)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package init(message: String) { self.message = message }
        package var description: String { message }
    }

    @discardableResult
    private func asServerUser(_ program: String, _ arguments: [String]) throws -> CapturedProcess {
        let path = binaries + "/" + program
        let command = geteuid() == 0
            ? ("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", path] + arguments)
            : (path, arguments)
        let result = try CapturedProcess.run(command.0, command.1, environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"])
        guard result.exitedNormally, result.status == 0 else {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw Failure(message: "\(program) failed (\(result.status)): \(result.standardError)\(result.standardOutput)\n\(log)")
        }
        return result
    }

    /// The newest installed server version's programs: /usr/lib/postgresql/N/bin.
    private static func binDirectory() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        return versions.reversed().map { "\(root)/\($0)/bin" }.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    /// A TCP port on loopback that nothing listens on now: the kernel's pick for port 0.
    private static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

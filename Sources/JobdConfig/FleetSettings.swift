import Glibc
package import JobdUnitFile
import JobdDefinition

/// The `[Fleet]` section of `jobd.conf`: the PostgreSQL database through which the nodes of a fleet
/// agree on who runs a `RunOn=one-node` job's elapse. Without the section jobd is a single machine.
package struct FleetSettings: Sendable, Hashable {
    /// `Database=`: where the fleet's database is, as any libpq connection string
    /// (`host=db.example.org dbname=jobd user=jobd`) or URI (`postgresql://jobd@db.example.org/jobd`),
    /// with libpq's every parameter (several hosts, `service=`, `sslmode=`, `sslrootcert=`, ...)
    /// but a password. Without `sslmode=`, jobd asks for `verify-full`.
    package var database: String
    /// `PasswordFile=`: libpq's `passfile` (lines of `host:port:database:user:password`), or, as
    /// before libpq, the password on its first line; a file only jobd's user may read; without it,
    /// libpq's own (`PGPASSFILE`, `~/.pgpass`).
    package var passwordFile: String?
    /// `Node=`: this node's name in the claims; the host name by default.
    package var node: String
    /// `LeaseSec=`: how long a claim stays the node's without a renewal; a run whose node stopped
    /// renewing is recorded `lost` by another node this long after its last renewal.
    package var lease: TimeSpan = .seconds(30)
    /// `MaxClockSkewSec=`: a node whose clock is further than this from the database's `now()` claims nothing.
    package var maxClockSkew: TimeSpan = .seconds(2)
    /// `Schema=`: the schema jobd's tables live in; the role needs rights on it alone.
    package var schema: String = "jobd"
    /// `MaxRetentionSec=`: claims of elapses older than this are removed (each job's latest claim
    /// always stays: `Persistent=` counts from it), and so are nodes' starts whose last heartbeat is
    /// older; `infinity` (or `0`, as journald reads it) keeps everything.
    package var retention: TimeSpan = .seconds(30 * 86_400)

    package init(database: String, node: String) {
        self.database = database
        self.node = node
    }

    /// What is wrong with a `Database=` value, found by whoever can read connection strings (libpq,
    /// in JobdFleet): `message` says what, `hint` what was expected.
    package struct DatabaseProblem: Error, Sendable, Hashable {
        package var message: String
        package var hint: String

        package init(message: String, hint: String) {
            self.message = message
            self.hint = hint
        }
    }

    /// Checks a `Database=` value when the configuration is read, so that its error names the file
    /// and line; JobdConfig itself does not parse connection strings.
    package typealias DatabaseCheck = @Sendable (String) -> DatabaseProblem?

    static let section = "Fleet"
    static let keys = ["Database", "PasswordFile", "Node", "LeaseSec", "MaxClockSkewSec", "Schema", "MaxRetentionSec"]

    /// This machine's host name, the default `Node=`.
    package static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reads the `[Fleet]` assignments of `file`; `nil` with no error when the section is absent.
    static func read(_ file: UnitFile, path: String, check: DatabaseCheck?, errors: inout [ConfigError]) -> FleetSettings? {
        guard let section = file.sections.first(where: { $0.name == Self.section }) else { return nil }
        var uri: (value: String, line: Int)?
        var settings = FleetSettings(database: "", node: hostName())
        func error(_ line: Int, _ message: String, _ hint: String) {
            errors.append(ConfigError(file: path, line: line, message: message, hint: hint))
        }
        for assignment in file.assignments where assignment.section == Self.section && !assignment.key.hasPrefix("X-") {
            let (value, line) = (assignment.value, assignment.line)
            switch assignment.key {
            case "Database":
                uri = (value, line)
            case "PasswordFile":
                if value.isEmpty { settings.passwordFile = nil } else if value.hasPrefix("/") { settings.passwordFile = value } else {
                    error(line, "PasswordFile=: '\(value)' is not an absolute path", "write a path such as /etc/jobd/fleet.pgpass (mode 0600, owned by root)")
                }
            case "Node":
                if value.isEmpty { settings.node = hostName() } else if JobFileReader.isValidJobName(value) { settings.node = value } else {
                    error(line, "Node=: '\(value)' is not a node name", "use letters, digits and '_.@:-' only")
                }
            case "LeaseSec", "MaxClockSkewSec":
                do {
                    let span = try TimeSpan.parse(value)
                    guard span > .zero, !span.isInfinite else { throw TimeSpanError(text: value, reason: "must be more than 0 and finite") }
                    if assignment.key == "LeaseSec" { settings.lease = span } else { settings.maxClockSkew = span }
                } catch let failure {
                    error(line, "\(assignment.key)=: \(failure)", "write a time span such as 30s or 2s")
                }
            case "MaxRetentionSec":
                do {
                    let span = try TimeSpan.parse(value)
                    settings.retention = span == .zero ? .infinity : span
                } catch let failure {
                    error(line, "MaxRetentionSec=: \(failure)", "write a time span such as 30d, or infinity to keep every claim")
                }
            case "Schema":
                if value.isEmpty || !value.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isLowercase || $0.properties.numericType == .decimal || $0 == "_") })
                    || value.first!.isNumber {
                    error(line, "Schema=: '\(value)' is not a plain schema name", "write lowercase letters, digits and '_', such as jobd")
                } else {
                    settings.schema = value
                }
            default:
                let hint = KeySpelling.nearest(to: assignment.key, among: keys).map { "did you mean '\($0)='?" }
                    ?? "known keys: " + keys.map { $0 + "=" }.joined(separator: ", ")
                error(line, "unknown key '\(assignment.key)=' in [Fleet]", hint)
            }
        }
        guard let uri else {
            error(section.line, "[Fleet] has no Database=", "write Database=postgresql://jobd@db.example.org/jobd")
            return nil
        }
        if uri.value.isEmpty {
            error(uri.line, "Database= is empty", "write Database=postgresql://jobd@db.example.org/jobd or a connection string such as host=db.example.org dbname=jobd user=jobd")
            return nil
        }
        if let problem = check?(uri.value) {
            error(uri.line, "Database=: \(problem.message)", problem.hint)
            return nil
        }
        settings.database = uri.value
        return settings
    }
}

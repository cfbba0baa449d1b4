import Glibc
package import JobdConfig
import SystemPackage

/// `Database=` as libpq reads it, and what jobd adds to it: libpq parses the connection string or
/// URI (every parameter libpq has, several hosts, percent-encoding), jobd refuses a password in it
/// (the password lives in `PasswordFile=`, readable by jobd's user only, never in jobd.conf), and
/// asks for `sslmode=verify-full` against the system's CAs unless `Database=` says otherwise.
package enum FleetConnectionString {
    /// Checks `Database=` as jobd.conf is read, so that its error names the file and line
    /// (``JobdConfig/JobDirectory/databaseCheck``).
    package static let check: FleetSettings.DatabaseCheck = { text in problem(in: text) }

    /// The TLS modes libpq knows (`sslmode=`).
    static let tlsModes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]
    /// Debian's bundle of the system's CAs (the ca-certificates package): `sslrootcert=`'s default
    /// for a verifying mode, as libpq's own default is a file in the home directory.
    static let systemRoots = "/etc/ssl/certs/ca-certificates.crt"

    private static let example =
        "write a URI such as postgresql://jobd@db.example.org/jobd or key=value pairs such as host=db.example.org dbname=jobd user=jobd"

    static func problem(in text: String) -> FleetSettings.DatabaseProblem? {
        switch PostgresConnection.parse(text) {
        case .failure(let error):
            return FleetSettings.DatabaseProblem(message: "'\(text)' is not a libpq connection string or URI: \(error.message)", hint: example)
        case .success(let parameters):
            if parameters["password"] != nil {
                return FleetSettings.DatabaseProblem(
                    message: "it holds a password",
                    hint: "remove it from jobd.conf and put it in the file PasswordFile= names (host:port:database:user:password, mode 0600)")
            }
            if let mode = parameters["sslmode"], !tlsModes.contains(mode) {
                return FleetSettings.DatabaseProblem(
                    message: "sslmode=\(mode) is not a TLS mode", hint: "write sslmode=" + tlsModes.joined(separator: ", sslmode="))
            }
            return nil
        }
    }

    /// libpq's parameters for `settings`, in the order ``PostgresConnection/open(_:deadline:)``
    /// reads them: jobd's defaults before `Database=` (which overrides them), `PasswordFile=` after.
    /// `timeout` bounds each operation; TCP gives up on unacknowledged data (and a cancel request's
    /// connection) as soon (`tcp_user_timeout`).
    package static func parameters(_ settings: FleetSettings, timeout: Duration) throws(FleetError) -> [(String, String)] {
        if let problem = problem(in: settings.database) {
            throw FleetError(.configuration, "Database=: \(problem.message); \(problem.hint)")
        }
        let given = (try? PostgresConnection.parse(settings.database).get()) ?? [:]
        var parameters: [(String, String)] = [("sslmode", "verify-full")]
        let mode = given["sslmode"] ?? "verify-full"
        if mode.hasPrefix("verify-"), given["sslrootcert"] == nil { parameters.append(("sslrootcert", systemRoots)) }
        let (seconds, attoseconds) = timeout.components
        parameters.append(("tcp_user_timeout", String(max(1, seconds * 1_000 + attoseconds / 1_000_000_000_000_000))))
        parameters.append(("fallback_application_name", "jobd"))
        parameters.append(("dbname", settings.database))
        if let file = settings.passwordFile {
            let text = try readPasswordFile(file)
            if isPassfile(text) {
                parameters.append(("passfile", file))
            } else {
                // The format of jobd before libpq: the first line is the password.
                parameters.append(("password", String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")))
            }
        }
        return parameters
    }

    /// Whether `text` is libpq's password file format (every line that is not blank or a comment
    /// has at least four unescaped `:`), rather than jobd's older one, a password on the first line.
    /// So a fleet set up before libpq keeps connecting; a password of the older file with four or
    /// more `:` of its own must move to the passfile format (`*:*:*:*:PASSWORD`, `:` as `\:`).
    static func isPassfile(_ text: String) -> Bool {
        let lines = text.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) && !$0.hasPrefix("#") }
        return !lines.isEmpty && lines.allSatisfy { line in
            var separators = 0
            var escaped = false
            for character in line {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == ":" { separators += 1 }
            }
            return separators >= 4
        }
    }

    /// `PasswordFile=`'s text. It must be a regular file only its owner, jobd's user, can read or
    /// write: libpq would merely ignore one others can read, and the connection would fail for want
    /// of a password. Opened once and checked by its descriptor, so the file read is the file checked.
    private static func readPasswordFile(_ path: String) throws(FleetError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        var status = stat()
        guard fd >= 0, fstat(fd, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw FleetError(.password, "PasswordFile=\(path): \(reason)")
        }
        defer { close(fd) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw FleetError(.password, "PasswordFile=\(path) is not a regular file") }
        guard status.st_uid == geteuid(), status.st_mode & 0o077 == 0 else {
            throw FleetError(.password, "PasswordFile=\(path) must be owned by jobd's user and readable by it alone (chmod 0600)")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while bytes.count < 1 << 20 {
            guard let count = try? buffer.withUnsafeMutableBytes({ try FileDescriptor(rawValue: fd).read(into: $0) }),
                  count > 0 else { break }
            bytes += buffer.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

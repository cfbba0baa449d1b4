/// `Database=` of `[Fleet]`: a PostgreSQL connection URI as libpq writes one, without a password
/// (the password lives in a file only root can read, never in `jobd.conf`).
package struct FleetURI: Sendable, Hashable {
    package var host: String
    package var port: Int
    package var user: String
    package var database: String
    package var tls: FleetSettings.TLSMode
    package var rootCertificate: String?

    package struct Failure: Error, Sendable, Hashable {
        package var message: String
        package var hint: String
    }

    static let example = "postgresql://jobd@db.example.org:5432/jobd?sslmode=verify-full"

    /// `postgresql://USER@HOST[:PORT]/DATABASE[?sslmode=disable|require|verify-full&sslrootcert=PATH]`.
    package static func parse(_ text: String) -> Result<FleetURI, Failure> {
        func fail(_ message: String, _ hint: String = "write it as \(example)") -> Result<FleetURI, Failure> {
            .failure(Failure(message: message, hint: hint))
        }
        var rest = Substring(text)
        guard let scheme = ["postgresql://", "postgres://"].first(where: { rest.hasPrefix($0) }) else {
            return fail("'\(text)' is not a postgresql:// URI")
        }
        rest = rest.dropFirst(scheme.count)
        var query = Substring("")
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else { return fail("'\(text)' names no database") }
        let database = String(rest[rest.index(after: slash)...])
        var authority = rest[..<slash]
        guard let at = authority.lastIndex(of: "@") else { return fail("'\(text)' names no user (USER@HOST)") }
        let userInfo = authority[..<at]
        if userInfo.contains(":") {
            return fail("the URI holds a password", "remove it from jobd.conf and put it in PasswordFile= (readable by root only) or PGPASSFILE")
        }
        authority = authority[authority.index(after: at)...]
        var host = String(authority)
        var port = 5432
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else {
                return fail("'\(authority[authority.index(after: colon)...])' is not a port")
            }
            port = number
            host = String(authority[..<colon])
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !userInfo.isEmpty, !host.isEmpty, !database.isEmpty else { return fail("'\(text)' lacks a user, host or database") }
        var uri = FleetURI(host: host, port: port, user: String(userInfo), database: database, tls: .verifyFull)
        for parameter in query.split(separator: "&") {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            let value = pair.count == 2 ? pair[1] : ""
            switch pair[0] {
            case "sslmode":
                guard let mode = FleetSettings.TLSMode(rawValue: value) else {
                    return fail("sslmode=\(value) is not supported",
                                "write sslmode=" + FleetSettings.TLSMode.allCases.map(\.rawValue).joined(separator: ", sslmode="))
                }
                uri.tls = mode
            case "sslrootcert":
                guard value.hasPrefix("/") else { return fail("sslrootcert=\(value) is not an absolute path", "name the CA file, such as sslrootcert=/etc/jobd/fleet-ca.pem") }
                uri.rootCertificate = value
            default:
                return fail("unknown URI parameter '\(pair[0])'", "jobd knows sslmode= and sslrootcert=")
            }
        }
        return .success(uri)
    }
}

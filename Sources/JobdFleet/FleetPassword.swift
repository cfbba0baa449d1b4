import Glibc
package import JobdConfig

/// Where the fleet's database password comes from: `PasswordFile=` (its first line), else the file
/// `PGPASSFILE` names, in libpq's `host:port:database:user:password` format. Either must be a
/// regular file that only its owner, jobd's own user, can read or write: a password others can
/// read is refused, as libpq refuses such a `.pgpass`.
package enum FleetPassword {
    package static func read(_ settings: FleetSettings, environment: [String: String]) throws(FleetError) -> String? {
        if let path = settings.passwordFile {
            let text = try contents(of: path)
            return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        }
        guard let path = environment["PGPASSFILE"], !path.isEmpty else { return nil }
        return lookUp(in: try contents(of: path), settings: settings)
    }

    /// The password of the first line of a `.pgpass` text that matches the settings (`*` matches anything).
    package static func lookUp(in text: String, settings: FleetSettings) -> String? {
        let wanted = [settings.host, String(settings.port), settings.database, settings.user]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = splitFields(line)
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// Fields separated by `:`, with `\:` and `\\` escaped as libpq escapes them.
    private static func splitFields(_ line: Substring) -> [String] {
        var fields = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":", fields.count < 5 {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }

    private static func contents(of path: String) throws(FleetError) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw FleetError(.password, "\(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw FleetError(.password, "\(path) is not a regular file") }
        guard status.st_uid == geteuid(), status.st_mode & 0o077 == 0 else {
            throw FleetError(.password, "\(path) must be owned by jobd's user and readable by it alone (chmod 0600)")
        }
        guard let file = fopen(path, "r") else { throw FleetError(.password, "\(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

import Glibc

/// Whether a directory jobd writes into as root can be trusted: a directory (not a link to one),
/// owned by jobd's user, writable by no one else (group-writable only for jobd's own group).
package enum OwnedDirectory {
    package static func problem(with directory: String) -> String? {
        var status = stat()
        guard lstat(directory, &status) == 0 else { return "cannot look at \(directory): \(String(cString: strerror(errno)))" }
        guard status.st_mode & S_IFMT == S_IFDIR else { return "\(directory) is not a directory (a link is not followed)" }
        guard status.st_uid == geteuid() else {
            return "\(directory) belongs to uid \(status.st_uid), not to jobd's uid \(geteuid())"
        }
        if status.st_mode & 0o002 != 0 || (status.st_mode & 0o020 != 0 && status.st_gid != getegid()) {
            return "\(directory) can be written by other users (mode \(String(status.st_mode & 0o7777, radix: 8)))"
        }
        return nil
    }
}

package import Glibc
package import JobdSystem

/// Users' crontabs in cron's spool, `/var/spool/cron/crontabs/USER`, written by jobd (as root) for
/// `crontab`, exactly as Debian's setgid crontab writes them, so that Debian's cron and jobd's cron
/// mode both read them: the file is named after the user, owned by the user's uid and group
/// `crontab`, mode 0600, with Debian's header (``CrontabHeader``, made by the caller); the
/// directory is root's, group `crontab`, mode 1730 (made so when missing).
///
/// Root writes where users send what to write: the directory is opened once without following a
/// link and checked (root's, writable by no one but root and group `crontab`), and every file in
/// it is reached by `openat`/`renameat`/`unlinkat` of one name that cannot hold a `/`, a new file
/// through a temporary one beside it (``AtomicFile``), so nothing can redirect a write or a read.
package struct CrontabSpool: Sendable {
    package static let defaultPath = "/var/spool/cron/crontabs"
    /// The group Debian's crontab is setgid to, which owns the spool and every crontab.
    package static let groupName = "crontab"
    /// The largest crontab jobd takes: what fits a control request (64 KiB of JSON) with room for
    /// escapes. Debian's crontab has no bound, but it does not write as root for whoever asks.
    package static let maximumBytes = 32_768

    package var path: String

    package init(path: String = CrontabSpool.defaultPath) {
        self.path = path
    }

    /// Whether `name` can name a file of the spool: cron's spool holds one file per user name,
    /// and a name with a `/`, a leading `.` (cron skips those) or a control character cannot be one.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.hasPrefix(".") && !name.contains("/")
            && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// The gid of group `crontab`, where it exists.
    package static func groupID() -> gid_t? {
        getgrnam(groupName).map { $0.pointee.gr_gid }
    }

    /// The spool directory, open and checked; with `create`, made as
    /// Debian's cron package makes it when missing. The caller closes it.
    package func openDirectory(create: Bool) -> Result<Int32, FileAccessError> {
        var fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0, errno == ENOENT, create {
            // /var/spool/cron, as cron's package has it (root's, 0755), and any missing above it.
            var parent = ""
            for component in path.split(separator: "/").dropLast() {
                parent += "/" + component
                if mkdir(parent, 0o755) != 0, errno != EEXIST { return .failure(FileAccessError(errno: errno, "cannot make \(parent)")) }
            }
            if mkdir(path, 0o700) != 0, errno != EEXIST { return .failure(FileAccessError(errno: errno, "cannot make \(path)")) }
            fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 {
                // The mode after the owner: group crontab gets its write bit only once it owns it.
                let group = Self.groupID()
                _ = fchown(fd, 0, group ?? 0)
                _ = fchmod(fd, group == nil ? 0o1700 : 0o1730)
            }
        }
        guard fd >= 0 else {
            return .failure(FileAccessError(errno: errno, errno == ELOOP || errno == ENOTDIR
                ? "\(path) is not a directory (a link is not followed)" : "cannot open \(path)"))
        }
        if let problem = Self.problem(withDirectory: fd, path: path, crontabGroup: Self.groupID()) {
            close(fd)
            return .failure(FileAccessError(problem))
        }
        return .success(fd)
    }

    /// Why the directory open as `fd` is not one jobd writes users' crontabs into: it must be
    /// jobd's (root's), and writable by no other user, by no group but `crontab`.
    static func problem(withDirectory fd: Int32, path: String, crontabGroup: gid_t?) -> String? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return "cannot look at \(path): \(String(cString: strerror(errno)))" }
        guard status.st_uid == geteuid() else { return "\(path) belongs to uid \(status.st_uid), not to jobd's uid \(geteuid())" }
        let groupWritable = status.st_mode & 0o020 != 0 && status.st_gid != getegid() && status.st_gid != crontabGroup
        if status.st_mode & 0o002 != 0 || groupWritable {
            return "\(path) can be written by other users (mode \(String(status.st_mode & 0o7777, radix: 8))); cron's spool is root:crontab, mode 1730"
        }
        return nil
    }

    /// The crontab of `user` as the spool holds it: `nil` when there is none; with `uid`, an error
    /// when the file is not that uid's (cron would not run it: "WRONG FILE OWNER"; it was written
    /// for an earlier account of the same name, and is not shown to the new one).
    package func text(of user: String, uid: uid_t?) -> Result<String?, FileAccessError> {
        guard Self.isValidName(user) else { return .failure(FileAccessError("'\(user)' cannot name a crontab")) }
        let directory: Int32
        switch openDirectory(create: false) {
        case .failure(let error) where error.errno == ENOENT: return .success(nil)
        case .failure(let error): return .failure(error)
        case .success(let fd): directory = fd
        }
        defer { close(directory) }
        var status = stat()
        guard fstatat(directory, user, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            return errno == ENOENT ? .success(nil) : .failure(FileAccessError(errno: errno, "cannot look at \(path)/\(user)"))
        }
        guard status.st_mode & S_IFMT == S_IFREG else { return .failure(FileAccessError("\(path)/\(user) is not a regular file")) }
        if let uid, status.st_uid != uid {
            return .failure(FileAccessError(
                "\(path)/\(user) is uid \(status.st_uid)'s, not \(user)'s (uid \(uid)): cron does not run it; ask the administrator to remove it"))
        }
        switch FileSystem.readFile(named: user, in: directory, device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) {
        case .success(let (text, _)): return .success(text)
        case .failure(let error): return .failure(FileAccessError("\(path)/\(user): \(error.message)"))
        case nil: return .failure(FileAccessError("\(path)/\(user) was replaced while jobd read it; try again"))
        }
    }

    /// Installs `text` (header included) as the crontab of `user`, whose account is `uid` and
    /// primary group `gid`: the file is the user's, group `crontab` (the user's group where
    /// there is no such group), mode 0600, replaced at once.
    package func install(_ text: String, of user: String, uid: uid_t, gid: gid_t) throws(AtomicFile.WriteError) {
        guard Self.isValidName(user) else { throw AtomicFile.WriteError(description: "'\(user)' cannot name a crontab") }
        let directory: Int32
        switch openDirectory(create: true) {
        case .failure(let error): throw AtomicFile.WriteError(description: error.message)
        case .success(let fd): directory = fd
        }
        defer { close(directory) }
        try AtomicFile.replace(named: user, in: directory, path: path + "/" + user, with: text, mode: 0o600,
                               owner: (uid, Self.groupID() ?? gid), durable: true)
    }

    /// Removes the crontab of `user`; `false` when there was none.
    package func remove(of user: String) throws(AtomicFile.WriteError) -> Bool {
        guard Self.isValidName(user) else { throw AtomicFile.WriteError(description: "'\(user)' cannot name a crontab") }
        let directory: Int32
        switch openDirectory(create: false) {
        case .failure(let error) where error.errno == ENOENT: return false
        case .failure(let error): throw AtomicFile.WriteError(description: error.message)
        case .success(let fd): directory = fd
        }
        defer { close(directory) }
        if unlinkat(directory, user, 0) == 0 { return true }
        if errno == ENOENT { return false }
        throw AtomicFile.WriteError(description: "cannot remove \(path)/\(user): \(String(cString: strerror(errno)))")
    }
}

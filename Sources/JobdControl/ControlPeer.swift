package import Glibc

/// Who is on the other end of a control connection (`SO_PEERCRED`, `SO_PEERGROUPS`), and what
/// ``ControlAccess`` lets them do: the daemon shows a reader only what the reader could read itself.
package struct ControlPeer: Sendable, Equatable {
    package var uid: uid_t
    package var gid: gid_t
    package var groups: [gid_t]
    package var level: ControlAccess.Level
    /// The peer's user name, as the user database has it
    /// when the request is read: whose own jobs (`NAME:JOB`) the peer may act on.
    package var userName: String?

    package init(uid: uid_t, gid: gid_t, groups: [gid_t], level: ControlAccess.Level, userName: String? = nil) {
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.level = level
        self.userName = userName
    }

    /// The name of user `uid` in the user database (NSS); `nil` when it has none.
    package static func userName(of uid: uid_t) -> String? {
        var size = 1_024
        while size <= 1 << 20 {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: size)
            let status = getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
            if status == ERANGE {
                size *= 4
                continue
            }
            guard status == 0, result != nil, let name = entry.pw_name else { return nil }
            return String(cString: name)
        }
        return nil
    }

    /// Whether this peer may read a file of `owner`, `group` and `mode` by its permission bits (the
    /// owner's, else the group's, else the others', as the kernel picks them). An ACL that grants
    /// more is not looked at: what it would show stays hidden, never the other way round.
    package func mayRead(owner: uid_t, group: gid_t, mode: mode_t) -> Bool {
        if level == .full { return true }
        if uid == owner { return mode & 0o400 != 0 }
        if gid == group || groups.contains(group) { return mode & 0o040 != 0 }
        return mode & 0o004 != 0
    }

    /// ``mayRead(owner:group:mode:)`` of the file at `path` as it is now; `false` when it cannot be looked at.
    package func mayRead(_ path: String) -> Bool {
        if level == .full { return true }
        var status = stat()
        guard !path.isEmpty, stat(path, &status) == 0 else { return false }
        return mayRead(owner: status.st_uid, group: status.st_gid, mode: status.st_mode)
    }
}

package import Glibc

/// The credentials a run switches to, as the system's user database (NSS: `/etc/passwd`, LDAP…)
/// gives them for `User=` and `Group=`.
package struct Account: Sendable, Equatable {
    /// The user's name, when `User=` was given.
    package var userName: String?
    package var uid: uid_t
    package var gid: gid_t
    /// The user's groups (as `initgroups(3)` would set them); `nil` leaves jobd's own, which is
    /// the case when only `Group=` is given.
    package var supplementaryGroups: [gid_t]?
    package var home: String?
    package var shell: String?

    /// Resolves `User=` and `Group=` as systemd does: a name or a numeric id; without `Group=`, the
    /// user's primary group; with only `Group=`, jobd's own user in that group. `nil` when neither
    /// is given: the run keeps jobd's credentials.
    /// `supplementary` (`SupplementaryGroups=`) adds groups to the user's, or to jobd's own.
    package static func resolve(user: String?, group: String?, supplementary: [String] = []) throws(AccountError) -> Account? {
        guard user != nil || group != nil || !supplementary.isEmpty else { return nil }
        var account = Account(userName: nil, uid: getuid(), gid: getgid())
        if let user {
            let entry = try lookUpUser(user)
            account = entry
            account.supplementaryGroups = try groupList(of: entry.userName ?? user, primary: entry.gid)
        }
        if let group {
            account.gid = try lookUpGroup(group)
            if let name = account.userName {
                // The run's group comes first among its supplementary groups, as initgroups puts it.
                account.supplementaryGroups = try groupList(of: name, primary: account.gid)
            }
        }
        if !supplementary.isEmpty {
            var groups: [gid_t]
            if let known = account.supplementaryGroups { groups = known } else { groups = try ownGroups() }
            for name in supplementary {
                let gid = try lookUpGroup(name)
                if !groups.contains(gid) { groups.append(gid) }
            }
            account.supplementaryGroups = groups
        }
        return account
    }

    /// The account named `name`, as getpwnam(3) finds one: by its name, never a uid written as one
    /// (`User=` takes both, but a crontab, a spool directory or a peer is an account's by name: a
    /// user named `0` must not be root). `nil` when there is none or it cannot be looked up.
    package static func named(_ name: String) -> Account? {
        guard let found = try? resolve(user: name, group: nil), found.userName == name else { return nil }
        return found
    }

    /// The supplementary groups this process has (`getgroups(2)`).
    private static func ownGroups() throws(AccountError) -> [gid_t] {
        let count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        guard count >= 0, getgroups(count, &groups) == count else {
            throw AccountError("cannot list jobd's own groups: \(String(cString: strerror(errno)))")
        }
        return groups
    }

    private init(userName: String?, uid: uid_t, gid: gid_t) {
        self.userName = userName
        self.uid = uid
        self.gid = gid
    }

    private static func lookUpUser(_ user: String) throws(AccountError) -> Account {
        try lookUp("user '\(user)'") { buffer, size in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let status = uid_t(user).map { getpwuid_r($0, &entry, buffer, size, &result) }
                ?? getpwnam_r(user, &entry, buffer, size, &result)
            guard status == 0, result != nil else { return (status, nil) }
            var account = Account(userName: entry.pw_name.map { String(cString: $0) }, uid: entry.pw_uid, gid: entry.pw_gid)
            account.home = entry.pw_dir.map { String(cString: $0) }
            account.shell = entry.pw_shell.map { String(cString: $0) }
            return (0, account)
        }
    }

    private static func lookUpGroup(_ group: String) throws(AccountError) -> gid_t {
        try lookUp("group '\(group)'") { buffer, size in
            var entry = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            let status = gid_t(group).map { getgrgid_r($0, &entry, buffer, size, &result) }
                ?? getgrnam_r(group, &entry, buffer, size, &result)
            return (status, result == nil ? nil : entry.gr_gid)
        }
    }

    /// Calls a reentrant NSS lookup with a buffer that grows while the lookup says ERANGE; `call`
    /// returns the lookup's status and what it read from the entry (while the buffer lives).
    private static func lookUp<Value>(
        _ what: String, _ call: (UnsafeMutablePointer<CChar>, Int) -> (status: Int32, value: Value?)
    ) throws(AccountError) -> Value {
        var size = 1_024
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let (status, value) = buffer.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count) }
            if status == ERANGE, size < 1 << 20 {
                size *= 4
                continue
            }
            guard status == 0 else { throw AccountError("cannot look up \(what): \(String(cString: strerror(status)))") }
            guard let value else { throw AccountError("no such \(what)") }
            return value
        }
    }

    private static func groupList(of user: String, primary: gid_t) throws(AccountError) -> [gid_t] {
        var count: Int32 = 32
        while true {
            var groups = [gid_t](repeating: 0, count: Int(count))
            let wanted = count
            if getgrouplist(user, primary, &groups, &count) >= 0 {
                return Array(groups.prefix(Int(count)))
            }
            guard count > wanted else { throw AccountError("cannot list the groups of user '\(user)'") }
        }
    }
}

/// Why `User=` or `Group=` could not be resolved.
package struct AccountError: Error, Sendable, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}

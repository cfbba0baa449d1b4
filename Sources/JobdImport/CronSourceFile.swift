/// One of cron's files as jobd's cron mode finds it (``CronTable``): where it is, which kind it
/// is, what `lstat`/`fstat` said of it, and its bytes. Pure: the daemon reads, this decides.
package struct CronSourceFile: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// `/etc/crontab`: the system format (a user field after the schedule).
        case systemCrontab
        /// A file of `/etc/cron.d`, by its name: the system format.
        case cronDirectory(name: String)
        /// A crontab of `/var/spool/cron/crontabs`, named for its user: no user field.
        case spool(user: String)

        /// Whether a user field follows the schedule.
        package var systemFormat: Bool { !isSpool }

        /// Why cron mode passes over a file of this kind and name, as Debian's cron does; `nil`
        /// when it reads it. Said by `jobctl check`, so that a checked file that never runs is not
        /// taken for one that does.
        package var unreadReason: String? {
            switch self {
            case .cronDirectory(let name) where !CronSourceFile.countsInCronDirectory(name):
                "cron reads only the names of cron.d made of letters, digits, '_' and '-' (no dots: NAME.dpkg-old is a package's leftover)"
            case .spool(let user) where !CronSourceFile.countsInSpool(user):
                "cron passes over hidden names and crontab's temporary files (tmp.*) in the spool"
            default: nil
            }
        }
        private var isSpool: Bool { if case .spool = self { true } else { false } }
    }

    /// What cron checks of a file before it reads it.
    package struct Status: Sendable, Hashable {
        /// The file's owner (the target's, for a symbolic link of the system's).
        package var uid: UInt32
        /// The permission bits (`st_mode & 07777`).
        package var permissions: UInt32
        package var isRegular: Bool
        package var linkCount: Int
        /// The owner of the symbolic link itself, when the path is one (`lstat`); `nil` otherwise.
        package var symlinkOwner: UInt32?

        package init(uid: UInt32, permissions: UInt32, isRegular: Bool = true, linkCount: Int = 1, symlinkOwner: UInt32? = nil) {
            self.uid = uid
            self.permissions = permissions
            self.isRegular = isRegular
            self.linkCount = linkCount
            self.symlinkOwner = symlinkOwner
        }
    }

    package var path: String
    package var kind: Kind
    package var status: Status
    package var bytes: [UInt8]

    package init(path: String, kind: Kind, status: Status, bytes: [UInt8]) {
        self.path = path
        self.kind = kind
        self.status = status
        self.bytes = bytes
    }

    /// Whether Debian's cron reads a file of `/etc/cron.d` by this name: run-parts' classical
    /// names, `[A-Za-z0-9_-]+` (so no dots: `sysstat.dpkg-old` and `x.bak` are skipped, as a
    /// hidden file is).
    package static func countsInCronDirectory(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
                || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    /// Whether Debian's cron reads a file of the spool by this name: not a hidden one, nor one of
    /// crontab(1)'s temporary files (`tmp.*`): neither is anyone's crontab.
    package static func countsInSpool(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.hasPrefix("tmp.")
    }

    /// Why Debian's cron (3.0pl1-162, `process_crontab`) would not read the file at all, with its
    /// own word for it; `nil` when it would. `userUID` is the uid of the spool file's user (`nil`:
    /// no such account). A user's crontab: the user's or root's, a regular file (not followed
    /// through a link), mode 0600 exactly, one link. A system one: root's (a link and its target
    /// both), regular, not writable by group or others, one link.
    package func refusal(userUID: UInt32?) -> String? {
        switch kind {
        case .spool(let user):
            guard let userUID else { return "ORPHAN: there is no user \(user)" }
            if status.symlinkOwner != nil { return "NOT A REGULAR FILE: a user's crontab may not be a symbolic link" }
            if status.uid != userUID && status.uid != 0 {
                return "WRONG FILE OWNER: the file is uid \(status.uid)'s, not \(user)'s (uid \(userUID)) or root's"
            }
            if !status.isRegular { return "NOT A REGULAR FILE" }
            if status.permissions != 0o600 {
                return "INSECURE MODE: mode \(octal(status.permissions)), where 0600 is expected"
            }
        case .systemCrontab, .cronDirectory:
            if let owner = status.symlinkOwner, owner != 0 { return "WRONG SYMLINK OWNER: the link is uid \(owner)'s, not root's" }
            if status.uid != 0 { return "WRONG FILE OWNER: the file is uid \(status.uid)'s, not root's" }
            if !status.isRegular { return "NOT A REGULAR FILE" }
            if status.permissions & 0o022 != 0 {
                return "INSECURE MODE: mode \(octal(status.permissions)) lets the group or others write it"
            }
        }
        if status.linkCount != 1 { return "NUMBER OF HARD LINKS > 1: the file has \(status.linkCount) links" }
        return nil
    }

    /// What to do about ``refusal(userUID:)``.
    package var refusalHint: String {
        switch kind {
        case .spool(let user): "install it with crontab(1), which writes it as \(user)'s, mode 0600"
        case .systemCrontab, .cronDirectory: "chown root \(path) && chmod go-w \(path)"
        }
    }

    private func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

package import Glibc
import JobdSystem

/// Who may use `crontab`, as Debian's cron decides it (`allowed()` in its misc.c) from
/// `/etc/cron.allow` and `/etc/cron.deny`: root always may; when `cron.allow` exists, only the
/// users it lists; otherwise, when `cron.deny` exists, everyone it does not list; with neither file,
/// everyone (Debian is built without `ALLOW_ONLY_ROOT`). A file names a user by a line that is
/// exactly the name: no trimming, no comments, as cron compares them (`strcmp` of the line without
/// its newline). This is not ``UserAccessList`` (jobd's own `users.allow`, for `jobctl --user`),
/// which skips comments and blanks: an administrator's cron files must mean what they meant to cron.
package struct CronAccess: Sendable, Equatable {
    /// A list file as it is now.
    package enum List: Sendable, Equatable {
        case absent
        case lines([String])
        /// It exists but cannot be read: it counts as a list that names nobody (see ``refusal(of:uid:)``).
        case unreadable(String)
    }

    package var allow: List
    package var deny: List

    package init(allow: List, deny: List) {
        self.allow = allow
        self.deny = deny
    }

    package static let allowFileName = "cron.allow"
    package static let denyFileName = "cron.deny"

    /// The lists in `directory` (`/etc`) as they are now.
    package static func read(directory: String) -> CronAccess {
        func list(_ name: String) -> List {
            let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
            switch FileSystem.readTextFile(path, limit: 1 << 20) {
            case .success(let text): return .lines(lines(of: text))
            case .failure(let error) where error.errno == ENOENT: return .absent
            case .failure(let error): return .unreadable("\(path): \(error.message)")
            }
        }
        return CronAccess(allow: list(allowFileName), deny: list(denyFileName))
    }

    /// The lines of a list file's `text`, each without its newline and nothing else removed.
    package static func lines(of text: String) -> [String] {
        if text.isEmpty { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if text.hasSuffix("\n") { lines.removeLast() }
        return lines
    }

    /// Why `user` (uid `uid`) may not use crontab; `nil` when they may. Debian's cron takes a file it
    /// cannot open for one that is absent; jobd, which reads as root, can open any file but a broken
    /// one, and then refuses rather than letting in whom a deny list it cannot read might name.
    package func refusal(of user: String, uid: uid_t) -> String? {
        if uid == 0 { return nil }
        let denied = "You (\(user)) are not allowed to use this program (crontab)\nSee crontab(1) for more information"
        switch allow {
        case .lines(let names): return names.contains(user) ? nil : denied + ": /etc/cron.allow does not list \(user)"
        case .unreadable(let problem): return denied + ": \(problem)"
        case .absent: break
        }
        switch deny {
        case .lines(let names): return names.contains(user) ? denied + ": /etc/cron.deny lists \(user)" : nil
        case .unreadable(let problem): return denied + ": \(problem)"
        case .absent: return nil
        }
    }
}

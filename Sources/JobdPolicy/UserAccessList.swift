import Glibc
import JobdSystem

/// Who may have jobs of their own (`jobctl --user`), as Debian's `cron.allow` and `cron.deny`
/// decide who may use `crontab`: with neither file, every user; when `users.allow` exists, only the
/// users it lists; otherwise everyone but those `users.deny` lists. Root always may. One name a
/// line; blank lines and lines starting with `#` are skipped.
package struct UserAccessList: Sendable, Equatable {
    /// The names in `users.allow`, when it exists.
    package var allowed: Set<String>?
    /// The names in `users.deny`, when it exists.
    package var denied: Set<String>?

    package init(allowed: Set<String>?, denied: Set<String>?) {
        self.allowed = allowed
        self.denied = denied
    }

    package static let allowFileName = "users.allow"
    package static let denyFileName = "users.deny"

    /// The lists in the configuration directory `directory` as they are now. A file that exists but
    /// cannot be read counts as one that lists nobody: an unreadable `users.allow` lets no user in,
    /// an unreadable `users.deny` keeps everyone out too, rather than letting in those it names.
    package static func read(configDirectory directory: String) -> UserAccessList {
        var unreadable = false
        func names(_ name: String) -> Set<String>? {
            let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
            switch FileSystem.readTextFile(path) {
            case .success(let text): return Set(listedNames(in: text))
            case .failure(let error) where error.errno == ENOENT: return nil
            case .failure:
                unreadable = true
                return []
            }
        }
        let list = UserAccessList(allowed: names(allowFileName), denied: names(denyFileName))
        return unreadable ? UserAccessList(allowed: [], denied: list.denied) : list
    }

    /// The names a list file's `text` holds.
    static func listedNames(in text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: " \t\r") }.filter { !$0.isEmpty && !$0.hasPrefix("#") }.map(String.init)
    }

    /// Why `user` may not have jobs of their own; `nil` when they may.
    package func refusal(of user: String) -> String? {
        if user == "root" { return nil }
        if let allowed {
            return allowed.contains(user) ? nil
                : "\(user) may not have jobs of their own: users.allow does not list \(user); ask the administrator to add \(user) to /etc/jobd/users.allow"
        }
        if let denied, denied.contains(user) {
            return "\(user) may not have jobs of their own: users.deny lists \(user); ask the administrator"
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var text = self
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return text
    }
}

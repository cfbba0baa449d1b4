/// Whose account a user crontab's jobs run as. A user crontab names no user: cron runs it as the
/// user it belongs to, so the import takes the same account, and never lets root's own account
/// stand in for an unknown owner.
///
/// - `--user NAME` decides.
/// - `/var/spool/cron/crontabs/NAME` is NAME's, as cron reads it; cron skips the file (`WRONG
///   FILE OWNER`) unless NAME or root owns it, and so does the import.
/// - Any other file is its owner's, unless root owns it: a copy made as root
///   (`crontab -l -u alice > FILE`) belongs to root, and would make every job `User=root`.
///   `--user root` says that is meant.
/// - Standard input is the invoking user's, unless that is root, for the same reason.
package enum CrontabAccount {
    package struct Account: Sendable, Hashable {
        package var uid: UInt32
        package var name: String

        package init(uid: UInt32, name: String) {
            self.uid = uid
            self.name = name
        }
    }

    package enum Source: Sendable, Hashable {
        case standardInput(invoker: Account)
        /// A file: its path as given, its owner's uid and account (`nil`: no account), and the
        /// account of NAME when the file is `/var/spool/cron/crontabs/NAME` (`spoolName`: NAME).
        case file(path: String, ownerUID: UInt32, owner: Account?, spoolName: String?, spoolAccount: Account?)
    }

    package enum Decision: Sendable, Hashable {
        /// The jobs run as `user`; `note` says where that differs from whose the crontab is.
        case user(String, note: String?)
        /// No account can be told: the import stops with this message.
        case refused(String)
    }

    /// The spool directory of Debian's cron.
    package static let spoolDirectory = "/var/spool/cron/crontabs"

    package static func decide(explicitUser: String?, source: Source) -> Decision {
        let rootHint = "say whose crontab it is with --user NAME (--user root if its jobs are to run as root)"
        switch source {
        case .standardInput(let invoker):
            if let explicitUser { return .user(explicitUser, note: nil) }
            if invoker.uid == 0 {
                return .refused("a crontab on standard input has no owner to take the account from, and root's would make every job User=root; "
                                + rootHint)
            }
            return .user(invoker.name, note: nil)
        case .file(let path, let ownerUID, let owner, let spoolName?, let spoolAccount):
            guard let spoolAccount else {
                if let explicitUser { return .user(explicitUser, note: "\(path) names no account on this machine; its jobs run as \(explicitUser), as --user says") }
                return .refused("\(path) is the crontab of '\(spoolName)', which is no account on this machine; \(rootHint)")
            }
            if ownerUID != spoolAccount.uid && ownerUID != 0 {
                let ownerName = owner?.name ?? "uid \(ownerUID)"
                return .refused("\(path) is owned by \(ownerName), not by \(spoolName) or root: cron does not run it (WRONG FILE OWNER); "
                                + "check who wrote it before importing it with --user")
            }
            if let explicitUser, explicitUser != spoolName {
                return .user(explicitUser, note: "\(path) is the crontab of \(spoolName); its jobs run as \(explicitUser), as --user says")
            }
            return .user(spoolName, note: nil)
        case .file(let path, let ownerUID, let owner, nil, _):
            if let explicitUser {
                let ownerName = owner?.name ?? "uid \(ownerUID)"
                let note = ownerName == explicitUser || ownerUID == 0 ? nil
                    : "\(path) is owned by \(ownerName); its jobs run as \(explicitUser), as --user says"
                return .user(explicitUser, note: note)
            }
            if ownerUID == 0 {
                return .refused("\(path) is owned by root but is not root's crontab in \(spoolDirectory)/: a copy of another user's crontab "
                                + "made as root is owned by root too; \(rootHint)")
            }
            guard let owner else {
                return .refused("\(path) is owned by uid \(ownerUID), which has no account on this machine; \(rootHint)")
            }
            return .user(owner.name, note: nil)
        }
    }
}

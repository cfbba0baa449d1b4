package import Glibc

/// The levels of access to the control socket. Root and jobd's own user may do everything; members
/// of the readers' group (`jobd`, where it exists; the package creates it) may look (`list`,
/// `status`); every other user may act on their own jobs only (`USER:JOB`, `jobctl --user`), and
/// lists only those. The level is decided from the peer's credentials (`SO_PEERCRED`, and its
/// supplementary groups, `SO_PEERGROUPS`), for every connection; what each request may do, jobd's
/// one authorizer decides (JobdDaemon's `ControlAuthorizer`), with whose each job is.
package struct ControlAccess: Sendable, Equatable {
    /// The group whose members may look, by default; an administrator adds a user to it with
    /// `adduser USER jobd`.
    package static let readersGroupName = "jobd"

    package enum Level: Sendable, Equatable {
        case full
        case readOnly
        /// Any other user: their own jobs only.
        case user
        case none
    }

    /// jobd's own user.
    package var ownUID: uid_t
    /// The readers' group, where it exists.
    package var readers: (name: String, gid: gid_t)?

    package init(ownUID: uid_t, readers: (name: String, gid: gid_t)?) {
        self.ownUID = ownUID
        self.readers = readers
    }

    package static func == (lhs: ControlAccess, rhs: ControlAccess) -> Bool {
        lhs.ownUID == rhs.ownUID && lhs.readers?.name == rhs.readers?.name && lhs.readers?.gid == rhs.readers?.gid
    }

    /// The readers' group of this machine: `name`'s gid, if the group exists.
    package static func readersGroup(named name: String = readersGroupName) -> (name: String, gid: gid_t)? {
        getgrnam(name).map { (name, $0.pointee.gr_gid) }
    }

    /// What a peer with user `uid`, group `gid` and supplementary `groups` may do.
    package func level(uid: uid_t, gid: gid_t, groups: [gid_t]) -> Level {
        if uid == 0 || uid == ownUID { return .full }
        if let readers, gid == readers.gid || groups.contains(readers.gid) { return .readOnly }
        return .user
    }

    /// Whether `command` only looks.
    package static func isReadOnly(_ command: ControlRequest.Command) -> Bool {
        switch command {
        case .status, .list, .plan: true
        // A user's own files are theirs alone, not readers'.
        case .run, .stop, .disable, .enable, .watchReload, .userFile, .userSave, .logs, .reloadPreview: false
        case .crontabList, .crontabInstall, .crontabRemove: false
        }
    }

    /// Why a peer with no access is refused, and how to get access.
    package var refusal: String {
        guard let readers else {
            return "permission denied: only root and jobd's own user may use jobd's control socket"
        }
        return "permission denied: jobd answers root and its own user, and members of group \(readers.name) "
            + "may list and look at jobs; ask for it to be added to your account (adduser $USER \(readers.name)), "
            + "then log in again"
    }

    /// Why a reader is refused `command`.
    package static func readOnlyRefusal(_ command: ControlRequest.Command, group: String) -> String {
        if command == .reloadPreview {
            // It changes nothing, but shows every job file's errors, which name what a reader may not read.
            return "permission denied: 'reload --dry-run' reads jobd's whole configuration and needs root (sudo jobctl reload --dry-run); "
                + "members of group \(group) may only list and look at jobs"
        }
        return "permission denied: '\(command.rawValue)' changes what jobd does and needs root (sudo jobctl \(command.rawValue) …); "
            + "members of group \(group) may only list and look at jobs"
    }
}

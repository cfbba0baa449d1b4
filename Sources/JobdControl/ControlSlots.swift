/// The control socket's connection slots, by role: whether one more connection is served, and why
/// not. Pure; ``ControlServer`` keeps one behind a lock.
///
/// Root and jobd's own user (``Role/administrator``) may hold every slot; readers (members of the
/// readers' group, ``Role/reader``) share a small quota of their own, whoever of them holds it, and
/// so do all other users (``Role/user(uid:)``), each uid at most ``Limits/perUser`` of theirs, so that
/// no user alone can keep another out; however hard they try, ``Limits/total`` minus
/// ``Limits/readers`` and ``Limits/users`` slots stay for
/// `jobctl reload` (`systemctl reload jobd`), `status` and every other request of root's.
package struct ControlSlots: Sendable, Hashable {
    /// Who holds a slot.
    package enum Role: Sendable, Hashable {
        /// Root and jobd's own user: may do everything.
        case administrator
        /// A member of the readers' group: may look.
        case reader
        /// Any other user: their own jobs.
        case user(uid: UInt32)
    }

    package struct Limits: Sendable, Hashable {
        /// Connections at once, in all.
        package var total: Int
        /// Connections at once that readers may hold between them.
        package var readers: Int
        /// Connections at once that other users may hold between them.
        package var users: Int
        /// Connections at once that one other user (one uid) may hold: `UserConnectionsMax=`.
        package var perUser: Int

        package init(total: Int, readers: Int, users: Int = 0, perUser: Int = 4) {
            self.total = total
            self.readers = readers
            self.users = users
            self.perUser = perUser
        }

        /// jobd's: 32 in all, 4 of them for readers and 8 for other users (4 for any one of them), so 20
        /// that only root and jobd's user can take.
        package static let jobd = Limits(total: 32, readers: 4, users: 8, perUser: 4)
    }

    /// Whether a connection is served.
    package enum Admission: Sendable, Hashable {
        case admitted
        /// Refused, with what to tell the client (a `busy` error).
        case refused(String)
    }

    /// The limits; a reload may change ``Limits/perUser`` (slots already held are kept).
    package var limits: Limits
    private(set) package var administrators = 0
    private(set) package var readers = 0
    private(set) package var users = 0
    /// The slots each other user holds, by uid; a uid holding none has no entry.
    private(set) package var byUser: [UInt32: Int] = [:]

    package init(limits: Limits = .jobd) {
        self.limits = limits
    }

    /// Takes a slot for a connection of `role`, if one is free to it.
    package mutating func admit(_ role: Role) -> Admission {
        guard administrators + readers + users < limits.total else {
            return .refused("too many connections (\(limits.total)); try again")
        }
        switch role {
        case .administrator:
            administrators += 1
        case .reader:
            guard readers < limits.readers else {
                return .refused("too many connections from readers (\(limits.readers) at once, for all of them); try again")
            }
            readers += 1
        case .user(let uid):
            guard users < limits.users else {
                return .refused("too many connections from users (\(limits.users) at once, for all of them); try again")
            }
            guard byUser[uid, default: 0] < limits.perUser else {
                return .refused("too many connections from uid \(uid) (UserConnectionsMax=\(limits.perUser) at once); try again")
            }
            users += 1
            byUser[uid, default: 0] += 1
        }
        return .admitted
    }

    /// Gives back the slot of a connection of `role` that ended.
    package mutating func release(_ role: Role) {
        switch role {
        case .administrator: administrators -= 1
        case .reader: readers -= 1
        case .user(let uid):
            users -= 1
            byUser[uid, default: 0] -= 1
            precondition(byUser[uid, default: 0] >= 0, "a control slot was released twice")
            if byUser[uid] == 0 { byUser[uid] = nil }
        }
        precondition(administrators >= 0 && readers >= 0 && users >= 0, "a control slot was released twice")
    }
}

extension ControlPeer {
    /// The role the peer's connection holds its slot in; `nil` for one that is not served.
    package var slotRole: ControlSlots.Role? {
        switch level {
        case .full: .administrator
        case .readOnly: .reader
        case .user: .user(uid: uid)
        case .none: nil
        }
    }
}

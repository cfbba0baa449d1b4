import JobdControl
import Testing

/// Who gets a control connection slot, by table: readers share a quota of their own, and what they
/// cannot take stays for root and jobd's user.
@Suite struct ControlSlotsTests {
    enum Step: Sendable, CustomStringConvertible {
        case admit(ControlSlots.Role, times: Int)
        case release(ControlSlots.Role, times: Int)

        var description: String {
            switch self {
            case .admit(let role, let times): "admit \(role) ×\(times)"
            case .release(let role, let times): "release \(role) ×\(times)"
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var steps: [Step]
        /// How many of the last step's admissions were refused.
        var refused: Int
        var administrators: Int
        var readers: Int
        var users = 0
        var testDescription: String { steps.map(\.description).joined(separator: ", ") }
    }

    @Test(arguments: [
        // A reader trying for every slot gets its quota, and no more.
        Row(steps: [.admit(.reader, times: 40)], refused: 36, administrators: 0, readers: 4),
        // ...and root still gets all the others.
        Row(steps: [.admit(.reader, times: 40), .admit(.administrator, times: 30)], refused: 2, administrators: 28, readers: 4),
        // Root may take every slot; then a reader waits like anyone.
        Row(steps: [.admit(.administrator, times: 32), .admit(.reader, times: 1)], refused: 1, administrators: 32, readers: 0),
        // A slot given back is free again, to its role.
        Row(steps: [.admit(.reader, times: 4), .release(.reader, times: 1), .admit(.reader, times: 2)], refused: 1, administrators: 0, readers: 4),
        Row(steps: [.admit(.administrator, times: 32), .release(.administrator, times: 3), .admit(.reader, times: 5)],
            refused: 2, administrators: 29, readers: 3),
        // Users share 8, whatever readers hold, and root keeps the other 20; one user (one uid) holds
        // at most 4 of them (UserConnectionsMax=), so that no user alone keeps another out (issue 37).
        Row(steps: [.admit(.user(uid: 1000), times: 40)], refused: 36, administrators: 0, readers: 0, users: 4),
        Row(steps: [.admit(.user(uid: 1000), times: 40), .admit(.user(uid: 1001), times: 40)], refused: 36, administrators: 0, readers: 0,
            users: 8),
        Row(steps: [.admit(.user(uid: 1000), times: 40), .admit(.user(uid: 1001), times: 1)], refused: 0, administrators: 0, readers: 0,
            users: 5),
        Row(steps: [.admit(.user(uid: 1000), times: 4), .release(.user(uid: 1000), times: 1), .admit(.user(uid: 1000), times: 2)],
            refused: 1, administrators: 0, readers: 0, users: 4),
        Row(steps: [.admit(.user(uid: 1000), times: 40), .admit(.user(uid: 1001), times: 40), .admit(.user(uid: 1002), times: 40),
                    .admit(.reader, times: 40), .admit(.administrator, times: 30)],
            refused: 10, administrators: 20, readers: 4, users: 8),
    ])
    func slotsByRole(_ row: Row) {
        var slots = ControlSlots(limits: .jobd)
        var refused = 0
        for step in row.steps {
            refused = 0
            switch step {
            case .admit(let role, let times):
                for _ in 0..<times { if slots.admit(role) != .admitted { refused += 1 } }
            case .release(let role, let times):
                for _ in 0..<times { slots.release(role) }
            }
        }
        #expect(refused == row.refused)
        #expect(slots.administrators == row.administrators && slots.readers == row.readers && slots.users == row.users)
    }

    @Test func refusalsSayWhy() {
        var slots = ControlSlots(limits: .init(total: 2, readers: 1))
        #expect(slots.admit(.reader) == .admitted)
        #expect(slots.admit(.reader) == .refused("too many connections from readers (1 at once, for all of them); try again"))
        #expect(slots.admit(.administrator) == .admitted)
        #expect(slots.admit(.administrator) == .refused("too many connections (2); try again"))
        var users = ControlSlots(limits: .init(total: 8, readers: 1, users: 4, perUser: 1))
        #expect(users.admit(.user(uid: 1000)) == .admitted)
        #expect(users.admit(.user(uid: 1000)) == .refused("too many connections from uid 1000 (UserConnectionsMax=1 at once); try again"))
        #expect(users.admit(.user(uid: 1001)) == .admitted)
        func role(_ level: ControlAccess.Level) -> ControlSlots.Role? { ControlPeer(uid: 1000, gid: 1000, groups: [], level: level).slotRole }
        #expect(role(.full) == .administrator && role(.readOnly) == .reader)
        #expect(role(.none) == nil && role(.user) == .user(uid: 1000))
    }
}

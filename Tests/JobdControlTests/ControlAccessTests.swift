import JobdControl
import Testing

/// The levels of peers, and what a reload report shows each (what each may ask is
/// ControlAuthorizerTests', in JobdDaemonTests).
@Suite struct ControlAccessTests {
    @Test func everyUserWhoIsNeitherRootNorAReaderActsOnTheirOwn() {
        let access = ControlAccess(ownUID: 0, readers: (name: "jobd", gid: 999))
        #expect(access.level(uid: 0, gid: 0, groups: []) == .full)
        #expect(access.level(uid: 1000, gid: 1000, groups: [999]) == .readOnly)
        #expect(access.level(uid: 1000, gid: 1000, groups: []) == .user)
    }

    /// Whose a name or an error is, is the uid the load recorded, never the name or the path: a
    /// system file whose path holds `/users/alice/` stays root's, and a new account given alice's
    /// name sees none of hers (issue 37).
    @Test func aUserSeesOnlyTheirOwnInAReloadReport() {
        var report = ReloadReport(
            sequence: 1, accepted: false, generation: 2, added: ["alice:a", "bob:b", "system"], changed: ["alice:c"], removed: ["bob:d"],
            kept: 3, errors: ["/var/spool/jobd/alice/a.job:2: error: x", "/etc/jobd/jobs.d/s.job:1: error: y",
                              "/srv/users/alice/jobs.d/t.job:1: error: z"], finishedRealtimeUSec: nil)
        report.errorOwners = [.user(1000), .root, .root]
        report.jobOwners = ["alice:a": 1000, "bob:b": 1001, "alice:c": 1000, "bob:d": 1001]
        let shown = report.shown(to: ControlPeer(uid: 1000, gid: 1000, groups: [], level: .user, userName: "alice"))
        #expect(shown.added == ["alice:a"] && shown.changed == ["alice:c"] && shown.removed.isEmpty)
        #expect(shown.errors == ["/var/spool/jobd/alice/a.job:2: error: x"])
        #expect(report.shown(to: ControlPeer(uid: 0, gid: 0, groups: [], level: .full)) == report)
        let reused = report.shown(to: ControlPeer(uid: 1005, gid: 1005, groups: [], level: .user, userName: "alice"))
        #expect(reused.added.isEmpty && reused.changed.isEmpty && reused.removed.isEmpty && reused.errors.isEmpty, "\(reused)")
    }
}

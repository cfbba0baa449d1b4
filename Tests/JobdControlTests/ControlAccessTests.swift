import JobdControl
import Testing

/// What each level of peer may ask, by table: a user acts on their own jobs (`USER:JOB`) alone, a
/// reader looks at everything and acts on their own, root does everything.
@Suite struct ControlAccessTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var level: ControlAccess.Level
        var command: ControlRequest.Command
        var job: String?
        var allowed: Bool
        var testDescription: String { "\(level) \(command.rawValue) \(job ?? "-")" }
    }

    @Test(arguments: [
        Row(level: .user, command: .run, job: "alice:backup", allowed: true),
        Row(level: .user, command: .status, job: "alice:backup", allowed: true),
        Row(level: .user, command: .disable, job: "alice:backup", allowed: true),
        Row(level: .user, command: .userSave, job: "alice:backup", allowed: true),
        Row(level: .user, command: .list, job: nil, allowed: true),
        Row(level: .user, command: .run, job: "bob:backup", allowed: false),
        Row(level: .user, command: .run, job: "backup", allowed: false),
        Row(level: .user, command: .run, job: "alice:", allowed: false),
        Row(level: .user, command: .status, job: nil, allowed: false),
        Row(level: .user, command: .watchReload, job: nil, allowed: false),
        Row(level: .user, command: .watchReload, job: "alice:x", allowed: false),
        Row(level: .user, command: .userFile, job: "bob:backup", allowed: false),
        Row(level: .readOnly, command: .status, job: "backup", allowed: true),
        Row(level: .readOnly, command: .run, job: "backup", allowed: false),
        Row(level: .readOnly, command: .run, job: "alice:backup", allowed: true),
        Row(level: .readOnly, command: .userFile, job: "bob:x", allowed: false),
        Row(level: .full, command: .run, job: "bob:backup", allowed: true),
        Row(level: .full, command: .watchReload, job: nil, allowed: true),
        Row(level: .none, command: .list, job: nil, allowed: false),
        Row(level: .readOnly, command: .plan, job: nil, allowed: true),
        Row(level: .user, command: .plan, job: nil, allowed: false),
        Row(level: .readOnly, command: .reloadPreview, job: nil, allowed: false),
        Row(level: .full, command: .reloadPreview, job: nil, allowed: true),
        // crontab's requests are anyone's to send: jobd decides whose crontab by the peer's uid.
        Row(level: .user, command: .crontabList, job: nil, allowed: true),
        Row(level: .user, command: .crontabInstall, job: nil, allowed: true),
        Row(level: .readOnly, command: .crontabRemove, job: nil, allowed: true),
        Row(level: .none, command: .crontabList, job: nil, allowed: false),
    ])
    func refusals(_ row: Row) {
        let peer = ControlPeer(uid: 1000, gid: 1000, groups: [], level: row.level, userName: "alice")
        let refusal = ControlAccess.refusal(of: ControlRequest(command: row.command, job: row.job), from: peer, readersGroup: "jobd")
        #expect((refusal == nil) == row.allowed, "\(refusal ?? "allowed")")
    }

    /// `reload --dry-run` changes nothing, but shows every file's errors: a reader is told it needs root, by its jobctl name.
    @Test func aReaderIsToldThatADryRunNeedsRoot() {
        let peer = ControlPeer(uid: 1000, gid: 1000, groups: [], level: .readOnly, userName: "alice")
        let refusal = ControlAccess.refusal(of: ControlRequest(command: .reloadPreview), from: peer, readersGroup: "jobd")
        #expect(refusal?.hasPrefix("permission denied: 'reload --dry-run' reads jobd's whole configuration and needs root (sudo jobctl reload --dry-run)") == true,
                "\(refusal ?? "allowed")")
    }

    @Test func everyUserWhoIsNeitherRootNorAReaderActsOnTheirOwn() {
        let access = ControlAccess(ownUID: 0, readers: (name: "jobd", gid: 999))
        #expect(access.level(uid: 0, gid: 0, groups: []) == .full)
        #expect(access.level(uid: 1000, gid: 1000, groups: [999]) == .readOnly)
        #expect(access.level(uid: 1000, gid: 1000, groups: []) == .user)
    }

    /// Whose an error is, is what the load recorded, never the path: a system file whose path
    /// holds `/users/alice/` stays root's (issue 37).
    @Test func aUserSeesOnlyTheirOwnInAReloadReport() {
        var report = ReloadReport(
            sequence: 1, accepted: false, generation: 2, added: ["alice:a", "bob:b", "system"], changed: ["alice:c"], removed: ["bob:d"],
            kept: 3, errors: ["/var/spool/jobd/alice/a.job:2: error: x", "/etc/jobd/jobs.d/s.job:1: error: y",
                              "/srv/users/alice/jobs.d/t.job:1: error: z"], finishedRealtimeUSec: nil)
        report.errorOwners = ["alice", nil, nil]
        let shown = report.shown(to: ControlPeer(uid: 1000, gid: 1000, groups: [], level: .user, userName: "alice"))
        #expect(shown.added == ["alice:a"] && shown.changed == ["alice:c"] && shown.removed.isEmpty)
        #expect(shown.errors == ["/var/spool/jobd/alice/a.job:2: error: x"])
        #expect(report.shown(to: ControlPeer(uid: 0, gid: 0, groups: [], level: .full)) == report)
    }
}

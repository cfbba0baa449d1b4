import Glibc
import JobdConfig
import JobdPolicy
import JobdControl
@testable import JobdDaemon
import JobdScheduler
import Testing

/// jobd's one authorizer (issue 37), without a process: every request kind from root, from the
/// job's owner, from another user, from a user users.deny lists, from a uid whose account was
/// deleted and from a new account that has the old one's name. Whose a job is is the uid its load
/// recorded, never its name.
@Suite struct ControlAuthorizerTests {
    /// alice (uid 1000) owns `alice:backup`; carol (1002) owns `carol:x`; `dave:old` is left by an
    /// account that is gone (its file has no live owner); `backup` is root's.
    static let snapshot = ControlAuthorizer.Snapshot(
        generation: Generation(
            jobs: [DaemonHarness.job("alice:backup") { $0.owningUID = 1000 }, DaemonHarness.job("backup"),
                   DaemonHarness.job("carol:x") { $0.owningUID = 1002 }],
            broken: [JobdConfiguration.BrokenJob(name: "dave:old", owner: "dave", path: "/var/spool/jobd/dave/old.job",
                                                 errors: [], revoked: true)]),
        access: UserAccessList(allowed: nil, denied: ["carol"]), readersGroup: "jobd")

    static func user(_ uid: uid_t, _ name: String?) -> ControlPeer {
        ControlPeer(uid: uid, gid: uid, groups: [], level: .user, userName: name)
    }

    /// The commands that act on or show one job, the one that lists, and those that need root
    /// from a user; every command is in one of them.
    static let jobCommands: [ControlRequest.Command] = [.status, .run, .stop, .disable, .enable, .userFile, .userSave, .logs]
    static let rootCommands: [ControlRequest.Command] = [.watchReload, .reloadPreview, .plan]
    /// crontab's: anyone's to send (whose crontab, and cron.allow/cron.deny, are CrontabRequests').
    static let crontabCommands: [ControlRequest.Command] = [.crontabList, .crontabInstall, .crontabRemove]

    struct Row: Sendable, CustomTestStringConvertible {
        var peer: ControlPeer
        var job: String
        /// For a job command, for `list`, and for a command that needs root (`%` is the command).
        var onJob: ControlAuthorizer.Decision
        var onList: ControlAuthorizer.Decision
        var onRootCommand: ControlAuthorizer.Decision
        /// For `user-file` and `user-save`, when it is not `onJob`.
        var onOwnFile: ControlAuthorizer.Decision?
        var testDescription: String { "\(peer.userName ?? "uid \(peer.uid)") \(job)" }
    }

    static let needsRoot = ControlAuthorizer.Decision.refuse("permission denied: '%' needs root; a user may act only on their own jobs, named alice:JOB (jobctl --user COMMAND JOB)")
    static let carolDenied = ControlAuthorizer.Decision.refuse("permission denied: carol may not have jobs of their own: users.deny lists carol; ask the administrator")

    static let rows: [Row] = [
        Row(peer: ControlPeer(uid: 0, gid: 0, groups: [], level: .full, userName: "root"), job: "alice:backup",
            onJob: .allow, onList: .allow, onRootCommand: .allow),
        Row(peer: user(1000, "alice"), job: "alice:backup", onJob: .allow, onList: .allowOwnJobsOf(1000), onRootCommand: needsRoot),
        Row(peer: user(1001, "bob"), job: "alice:backup",
            onJob: .refuse("permission denied: '%' of alice:backup needs root; a user may act only on their own jobs, named bob:JOB (jobctl --user COMMAND JOB)"),
            onList: .allowOwnJobsOf(1001),
            onRootCommand: .refuse("permission denied: '%' needs root; a user may act only on their own jobs, named bob:JOB (jobctl --user COMMAND JOB)")),
        Row(peer: user(1002, "carol"), job: "carol:x", onJob: carolDenied, onList: carolDenied,
            onRootCommand: .refuse("permission denied: '%' needs root; a user may act only on their own jobs, named carol:JOB (jobctl --user COMMAND JOB)")),
        Row(peer: user(1003, nil), job: "dave:old",
            onJob: .refuse("permission denied: '%' of dave:old needs root; a user may act only on their own jobs, named USER:JOB (jobctl --user COMMAND JOB)"),
            onList: .allowOwnJobsOf(1003),
            onRootCommand: .refuse("permission denied: '%' needs root; a user may act only on their own jobs, named USER:JOB (jobctl --user COMMAND JOB)")),
        // A new account given alice's name after hers was deleted: the name says alice, the uid does
        // not. Her own spool files are hers to ask for; the store gives only those of her uid.
        Row(peer: user(1005, "alice"), job: "alice:backup", onJob: .refuse("permission denied: alice:backup is not a job of yours"),
            onList: .allowOwnJobsOf(1005), onRootCommand: needsRoot, onOwnFile: .allow),
    ]

    @Test(arguments: rows)
    func everyRequestKindFromEachPeerIsDecidedByTheJobsUid(row: Row) {
        #expect(Set(Self.jobCommands + Self.rootCommands + Self.crontabCommands + [.list]) == Set(ControlRequest.Command.allCases),
                "a command no class of this table holds is decided by no row")
        for command in ControlRequest.Command.allCases {
            let (job, expected): (String?, ControlAuthorizer.Decision) = Self.crontabCommands.contains(command) ? (nil, .allow)
                : command == .list ? (nil, row.onList)
                : command == .userFile || command == .userSave ? (row.job, row.onOwnFile ?? row.onJob)
                : Self.jobCommands.contains(command) ? (row.job, row.onJob) : (nil, row.onRootCommand)
            let decision = ControlAuthorizer.decide(ControlRequest(command: command, job: job), from: row.peer, in: Self.snapshot)
            let wanted: ControlAuthorizer.Decision = expected.refusal.map { .refuse($0.split(separator: "%", omittingEmptySubsequences: false).joined(separator: command.rawValue)) }
                ?? expected
            #expect(decision == wanted, "\(command.rawValue) \(job ?? "-")")
        }
    }

    struct LevelRow: Sendable, CustomTestStringConvertible {
        var level: ControlAccess.Level
        var command: ControlRequest.Command
        var job: String?
        var allowed: Bool
        var testDescription: String { "\(level) \(command.rawValue) \(job ?? "-")" }
    }

    /// What each level of peer may ask: a user acts on their own jobs (`USER:JOB`) alone, a reader
    /// looks at everything and acts on their own, root does everything.
    @Test(arguments: [
        LevelRow(level: .user, command: .run, job: "alice:backup", allowed: true),
        LevelRow(level: .user, command: .status, job: "alice:backup", allowed: true),
        LevelRow(level: .user, command: .disable, job: "alice:backup", allowed: true),
        LevelRow(level: .user, command: .userSave, job: "alice:new", allowed: true),
        LevelRow(level: .user, command: .list, job: nil, allowed: true),
        LevelRow(level: .user, command: .run, job: "bob:backup", allowed: false),
        LevelRow(level: .user, command: .run, job: "backup", allowed: false),
        LevelRow(level: .user, command: .run, job: "alice:", allowed: false),
        LevelRow(level: .user, command: .status, job: nil, allowed: false),
        LevelRow(level: .user, command: .watchReload, job: nil, allowed: false),
        LevelRow(level: .user, command: .watchReload, job: "alice:x", allowed: false),
        LevelRow(level: .user, command: .userFile, job: "bob:backup", allowed: false),
        LevelRow(level: .readOnly, command: .status, job: "backup", allowed: true),
        LevelRow(level: .readOnly, command: .run, job: "backup", allowed: false),
        LevelRow(level: .readOnly, command: .run, job: "alice:backup", allowed: true),
        LevelRow(level: .readOnly, command: .userFile, job: "bob:x", allowed: false),
        LevelRow(level: .full, command: .run, job: "bob:backup", allowed: true),
        LevelRow(level: .full, command: .watchReload, job: nil, allowed: true),
        LevelRow(level: .none, command: .list, job: nil, allowed: false),
        LevelRow(level: .readOnly, command: .plan, job: nil, allowed: true),
        LevelRow(level: .user, command: .plan, job: nil, allowed: false),
        LevelRow(level: .readOnly, command: .reloadPreview, job: nil, allowed: false),
        LevelRow(level: .full, command: .reloadPreview, job: nil, allowed: true),
    ])
    func eachLevelOfPeerMayAskWhatItsLevelAllows(_ row: LevelRow) {
        let peer = ControlPeer(uid: 1000, gid: 1000, groups: [], level: row.level, userName: "alice")
        let decision = ControlAuthorizer.decide(ControlRequest(command: row.command, job: row.job), from: peer, in: Self.snapshot)
        #expect((decision.refusal == nil) == row.allowed, "\(decision)")
    }

    /// `reload --dry-run` changes nothing, but shows every file's errors: a reader is told it needs root, by its jobctl name.
    @Test func aReaderIsToldThatADryRunNeedsRoot() {
        let peer = ControlPeer(uid: 1000, gid: 1000, groups: [], level: .readOnly, userName: "alice")
        let refusal = ControlAuthorizer.decide(ControlRequest(command: .reloadPreview), from: peer, in: Self.snapshot).refusal
        #expect(refusal?.hasPrefix("permission denied: 'reload --dry-run' reads jobd's whole configuration and needs root (sudo jobctl reload --dry-run)") == true,
                "\(refusal ?? "allowed")")
    }
}

import Foundation
import JobdConfig
import JobdPolicy
import JobdTestKit
import Testing

/// What a user's own job file may say (issue 29), checked as `nobody`, a real account of the
/// machine: the keys that only describe or restrict a run are taken; a key that needs root, an
/// account or group not the user's, or a value that raises the run above the user is refused
/// with its line.
@Suite struct UserJobPolicyTests {
    static func nobody() throws -> Account {
        try #require(try Account.resolve(user: "nobody", group: nil))
    }

    /// jobd.conf's defaults (DefaultTasksMax=15%) on a system of 10,000 tasks: 1,500 a run.
    static let bounds = UserJobPolicy.Bounds(settings: DaemonSettings(), systemMaximum: 10_000)

    static func errors(_ body: String) throws -> [String] {
        UserJobPolicy.errors(in: "[Job]\nExecStart=/bin/true\n" + body, path: "mine.job", owner: try nobody(), bounds: bounds)
            .map(\.description)
    }

    @Test func keysThatDescribeOrRestrictARunAreTaken() throws {
        let body = """
            Description=backup
            OnCalendar=daily
            Environment=A=1
            WorkingDirectory=~
            User=nobody
            Group=nogroup
            Nice=10
            CPUSchedulingPolicy=idle
            IOSchedulingClass=idle
            CPUWeight=50
            MemoryMax=1G
            TasksMax=20
            TasksMax=1500
            TasksMax=15%
            TasksMax=
            NoNewPrivileges=yes
            PrivateTmp=yes
            ProtectSystem=strict
            SystemCallFilter=@system-service
            OnFailure=notify
            MailTo=me@example.org
            X-Anything=at all

            """
        #expect(try Self.errors(body) == [])
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var line: String
        var error: String
        var testDescription: String { line }
    }

    @Test(arguments: [
        Row(line: "User=root", error: "mine.job:3: error: User=root: a user's job runs as its owner, nobody"),
        Row(line: "Group=root", error: "mine.job:3: error: Group=root: nobody is not a member of group root"),
        Row(line: "SupplementaryGroups=nogroup root", error: "mine.job:3: error: SupplementaryGroups=root: nobody is not a member of group root"),
        Row(line: "Nice=-1", error: "mine.job:3: error: Nice=-1 needs root: a user's job may only lower its priority"),
        Row(line: "CPUSchedulingPolicy=fifo", error: "mine.job:3: error: CPUSchedulingPolicy=fifo needs root: real-time scheduling"),
        Row(line: "CPUSchedulingPriority=50", error: "mine.job:3: error: CPUSchedulingPriority= needs root: a user's job may not set it"),
        Row(line: "IOSchedulingClass=realtime", error: "mine.job:3: error: IOSchedulingClass=realtime needs root: real-time I/O"),
        // Other spellings the job file's reader takes for the same value.
        Row(line: "IOSchedulingClass=01", error: "mine.job:3: error: IOSchedulingClass=01 needs root: real-time I/O"),
        Row(line: "IOSchedulingClass=+1", error: "mine.job:3: error: IOSchedulingClass=+1 needs root: real-time I/O"),
        Row(line: "Nice=-0019", error: "mine.job:3: error: Nice=-0019 needs root: a user's job may only lower its priority"),
        Row(line: "IOWeight=0200", error: "mine.job:3: error: IOWeight=0200 needs root: a user's job may only lower its weight"),
        Row(line: "Group=no-such-group-of-jobd", error: "mine.job:3: error: Group=no-such-group-of-jobd: no such group"),
        Row(line: "IOSchedulingPriority=0", error: "mine.job:3: error: IOSchedulingPriority=0 needs root: a user's job may only lower its priority"),
        Row(line: "CPUWeight=1000", error: "mine.job:3: error: CPUWeight=1000 needs root: a user's job may only lower its weight"),
        Row(line: "LimitNOFILE=1000000", error: "mine.job:3: error: LimitNOFILE= needs root: a user's job may not set it"),
        Row(line: "AmbientCapabilities=CAP_NET_ADMIN", error: "mine.job:3: error: AmbientCapabilities= needs root: a user's job may not set it"),
        Row(line: "ReadWritePaths=/etc", error: "mine.job:3: error: ReadWritePaths= needs root: a user's job may not set it"),
        Row(line: "SyslogIdentifier=sshd", error: "mine.job:3: error: SyslogIdentifier= needs root: a user's job may not set it"),
        Row(line: "RunOn=one-node", error: "mine.job:3: error: RunOn= needs root: a user's job may not set it"),
        Row(line: "ConditionPathExists=/root/secret", error: "mine.job:3: error: ConditionPathExists= needs root: a user's job may not set it"),
        Row(line: "NoNewPrivileges=no", error: "mine.job:3: error: NoNewPrivileges=no: a user's job always runs with NoNewPrivileges=yes"),
        Row(line: "NoNewPrivileges=0", error: "mine.job:3: error: NoNewPrivileges=0: a user's job always runs with NoNewPrivileges=yes"),
        // Above DefaultTasksMax= (issue 37): a user's run must not take the tasks root's runs share.
        Row(line: "TasksMax=infinity", error: "mine.job:3: error: TasksMax=infinity needs root: a user's run may have at most DefaultTasksMax=15% (1500 tasks here) of jobd.conf"),
        Row(line: "TasksMax=1501", error: "mine.job:3: error: TasksMax=1501 needs root: a user's run may have at most DefaultTasksMax=15%"),
        Row(line: "TasksMax=15.01%", error: "mine.job:3: error: TasksMax=15.01% needs root: a user's run may have at most DefaultTasksMax=15%"),
        Row(line: "OnFailure=bob:notify", error: "mine.job:3: error: OnFailure=bob:notify: a user's job names only its owner's jobs, by their own names"),
    ])
    func aValueAboveTheUserIsRefusedWithItsLine(_ row: Row) throws {
        let errors = try Self.errors(row.line + "\n")
        #expect(errors.count == 1 && errors.first?.hasPrefix(row.error) == true, "\(errors)")
    }

    /// An empty value is a value: `CapabilityBoundingSet=` is the empty bounding set, under which a
    /// set-user-ID root program's `setuid(getuid())` "succeeds" and keeps saved uid 0. A user's
    /// run always has NoNewPrivileges=yes, whatever its file says or leaves out (issue 37).
    @Test(arguments: [
        "", "CapabilityBoundingSet=\n", "CapabilityBoundingSet=CAP_CHOWN\nCapabilityBoundingSet=\n", "SystemCallFilter=\n",
        "PrivateTmp=yes\n", "NoNewPrivileges=\n", "NoNewPrivileges=yes\nNoNewPrivileges=\n", "User=\n",
    ])
    func aUsersRunAlwaysHasNoNewPrivileges(body: String) throws {
        #expect(try Self.errors(body) == [])
        let store = UserJobStore(directory: "/nonexistent/users")
        let definition = try store.definition(of: try Self.nobody(), job: "mine", path: "mine.job",
                                              text: "[Job]\nExecStart=/bin/true\n" + body, names: ["mine"], bounds: Self.bounds).get()
        #expect(definition.sandbox.noNewPrivileges && definition.user == "nobody")
        #expect(definition.sandbox.execSandbox().noNewPrivileges, "\(definition.sandbox.execSandbox())")
    }

    @Test func theStoreRunsTheJobAsItsOwnerAndNamesItsOwnJobs() throws {
        let store = UserJobStore(directory: "/nonexistent/users")
        let text = "[Job]\nExecStart=/bin/true\nOnFailure=notify\n"
        let definition = try store.definition(of: try Self.nobody(), job: "backup", path: "backup.job", text: text,
                                              names: ["backup", "notify"], bounds: Self.bounds).get()
        #expect(definition.name == "nobody:backup" && definition.user == "nobody" && definition.onFailure == ["nobody:notify"])
        let missing = store.definition(of: try Self.nobody(), job: "backup", path: "backup.job", text: text, names: ["backup", "notfy"], bounds: Self.bounds)
        guard case .failure(let errors) = missing else {
            Issue.record("a job naming no job of the user's is refused")
            return
        }
        #expect(errors.errors.map(\.description).first?.contains("backup.job:3: error: OnFailure=: no job is named 'notify'") == true,
                "\(errors)")
        #expect(UserJobStore.owner(of: "nobody:backup")! == ("nobody", "backup") && UserJobStore.owner(of: "backup") == nil)
        #expect(!UserJobStore.isValidOwnName("a:b") && !UserJobStore.isValidOwnName(".hidden") && UserJobStore.isValidOwnName("a.b-c_d@e"))
    }

    /// A file in a user's directory that is not the account's own was written for an earlier
    /// account of that name: as cron with a crontab of the wrong owner, jobd neither runs it nor
    /// shows it to the account that has the name now; the user's other jobs run.
    @Test func aJobFileOfAnotherUidIsNeitherRunNorShown() throws {
        try Requirement.root("to give files to nobody and to an unused uid")
        let nobody = try Self.nobody()
        let state = try TemporaryConfiguration()
        let store = UserJobStore(directory: state.path + "/users")
        #expect(mkdir(store.path, 0o700) == 0 && mkdir(store.directory(of: "nobody"), 0o700) == 0)
        let earlierUid: uid_t = 64_999
        for (job, uid) in [("mine", nobody.uid), ("inherited", earlierUid)] {
            let path = store.file(of: "nobody", job: job)
            try "[Job]\nExecStart=/bin/true\n".write(toFile: path, atomically: false, encoding: .utf8)
            #expect(chown(path, uid, nobody.gid) == 0)
        }
        let (jobs, broken) = store.read(access: UserAccessList(allowed: nil, denied: nil), maximumJobs: 32, bounds: Self.bounds)
        #expect(jobs.map(\.name) == ["nobody:mine"])
        #expect(broken.map(\.name) == ["nobody:inherited"])
        #expect(broken.first?.errors.first?.message
                == "not read: the file is uid 64999's, not nobody's (uid \(nobody.uid)): it was written for an earlier account named nobody")
        #expect(try store.text(of: "nobody", uid: nobody.uid, job: "mine")?.get() == "[Job]\nExecStart=/bin/true\n")
        guard case .failure = store.text(of: "nobody", uid: nobody.uid, job: "inherited") else {
            Issue.record("the earlier account's file is shown to the account named nobody now")
            return
        }
        #expect(store.text(of: "nobody", uid: nobody.uid, job: "none") == nil)
    }

    /// `UserJobsMax=` bounds an account, not a name (issue 37): two names of one uid share one
    /// bound, in name order across them, and a file in her directory that is another uid's is
    /// neither run nor counted as one of hers.
    @Test func userJobsMaxCountsAUidsOwnFilesAcrossItsNames() throws {
        try Requirement.root("to give files to nobody and to an unused uid")
        let nobody = try Self.nobody()
        let state = try TemporaryConfiguration()
        let store = UserJobStore(directory: state.path + "/users")
        #expect(mkdir(store.path, 0o700) == 0)
        let otherUid: uid_t = 64_999
        // alice and alice2 are two names of nobody's uid; a0 in alice's directory is another uid's.
        for (user, job, uid) in [("alice", "a0", otherUid), ("alice", "a1", nobody.uid), ("alice", "a2", nobody.uid), ("alice2", "b1", nobody.uid)] {
            if access(store.directory(of: user), F_OK) != 0 { #expect(mkdir(store.directory(of: user), 0o700) == 0) }
            let path = store.file(of: user, job: job)
            try "[Job]\nExecStart=/bin/true\n".write(toFile: path, atomically: false, encoding: .utf8)
            #expect(chown(path, uid, nobody.gid) == 0)
        }
        let account = { (name: String) -> Account? in
            guard name == "alice" || name == "alice2" else { return nil }
            var account = nobody
            account.userName = name
            return account
        }
        let (jobs, broken) = store.read(access: UserAccessList(allowed: nil, denied: nil), maximumJobs: 2, bounds: Self.bounds, account: account)
        #expect(jobs.map(\.name) == ["alice:a1", "alice:a2"])
        #expect(broken.map(\.name).sorted() == ["alice2:b1", "alice:a0"])
        #expect(broken.first { $0.name == "alice2:b1" }?.errors.first?.message
                == "alice2 (uid \(nobody.uid)) has more than 2 jobs (UserJobsMax= in jobd.conf)")
        // A save counts the same files, whichever of the names asks.
        #expect(store.jobCount(ofUID: nobody.uid, account: account) == 3)
        #expect(store.jobCount(ofUID: otherUid, account: account) == 0)
    }

    @Test(arguments: [
        // Debian's cron.allow and cron.deny: neither file, everyone; allow exists, only those listed; else deny's.
        (nil, nil, "alice", true), (nil, ["bob"], "alice", true), (nil, ["alice"], "alice", false),
        (["alice"], nil, "alice", true), (["bob"], nil, "alice", false), (["alice"], ["alice"], "alice", true),
        ([], nil, "alice", false), (["bob"], nil, "root", true), (nil, ["root"], "root", true),
    ] as [(Set<String>?, Set<String>?, String, Bool)])
    func usersAllowAndDenyWorkAsCronAllowAndDeny(allowed: Set<String>?, denied: Set<String>?, user: String, may: Bool) {
        #expect((UserAccessList(allowed: allowed, denied: denied).refusal(of: user) == nil) == may)
    }
}


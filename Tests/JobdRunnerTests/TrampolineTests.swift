import Glibc
import JobdConfig
@testable import JobdRunner
import Testing

/// The plans jobd gives jobd-cgexec, and what it reads back from it (issues 26, 39).
struct TrampolineTests {
    static func account(user: String?, groups: [gid_t]?) throws -> Account {
        var account = try #require(try Account.resolve(user: "0", group: "0"))
        account.userName = user
        account.uid = 1_000
        account.gid = 100
        account.supplementaryGroups = groups
        return account
    }

    @Test func aUserSwitchesGroupsGidAndUidAndTheDirectoryIsTheTrampolines() throws {
        let account = try Self.account(user: "alice", groups: [100, 27])
        let cgroup = RunCgroup(directory: "/sys/fs/cgroup/jobd/run-1", path: "/jobd/run-1")
        let directory = WorkingDirectory(path: "/home/alice", optional: true)
        let plan = Trampoline.plan(cgroup: cgroup, account: account, directory: directory, environment: ["PATH": "/bin"], argv: ["id"])
        #expect(plan.cgroups == ["/sys/fs/cgroup/jobd/run-1"])
        #expect(plan.credentials == ExecPlan.Credentials(groups: [100, 27], gid: 100, uid: 1_000))
        #expect(plan.directory == directory && plan.keyring && plan.mode == .run && !plan.keepsStandardInput)
        #expect(plan.environment == ["PATH": "/bin"] && plan.argv == ["id"])
        // Group= alone keeps jobd's uid and its supplementary groups, as setpriv --keep-groups did.
        let groupOnly = try Self.account(user: nil, groups: nil)
        #expect(Trampoline.plan(cgroup: nil, account: groupOnly, directory: nil, environment: [:], argv: ["id"]).credentials
                == ExecPlan.Credentials(gid: 100))
        let read = Trampoline.readPlan(account, files: [EnvironmentFile(path: "/etc/a.env", optional: false)])
        #expect(read.mode == .readFiles(limit: 1_048_576) && read.readFiles == ["/etc/a.env"] && read.argv.isEmpty && !read.keyring)
        #expect(read.credentials == ExecPlan.Credentials(groups: [100, 27], gid: 100, uid: 1_000))
    }

    /// A User= run's mail goes through the same switch as the run, sendmail reading the message
    /// that follows the plan, with jobd's environment and no keyring of its own.
    @Test func aUsersMailIsSentThroughTheSameSwitch() throws {
        let account = try Self.account(user: "alice", groups: [100])
        let plan = Trampoline.mailPlan(account, argv: ["/usr/sbin/sendmail", "-i", "ops@example.com"], environment: ["PATH": "/bin"])
        #expect(plan.credentials == ExecPlan.Credentials(account))
        #expect(plan.keepsStandardInput && !plan.keyring && plan.cgroups.isEmpty && plan.mode == .run)
        #expect(plan.argv == ["/usr/sbin/sendmail", "-i", "ops@example.com"] && plan.environment == ["PATH": "/bin"])
    }

    /// A fleet run's fence: the supervisor's file and the job's TimeoutStopSec=.
    @Test func aFencedRunNamesItsFenceAndItsStopTimeout() throws {
        let account = try Self.account(user: "alice", groups: nil)
        let fence = RunFence(path: "/run/jobd/fence/abc")
        let timed = Trampoline.plan(cgroup: nil, account: account, directory: nil, fence: (fence, .seconds(90)), environment: [:], argv: ["x"])
        #expect(timed.fence?.path == "/run/jobd/fence/abc" && timed.fence?.stopMicroseconds == 90_000_000)
        let endless = Trampoline.plan(cgroup: nil, account: nil, directory: nil, fence: (fence, .infinity), environment: [:], argv: ["x"])
        #expect(endless.fence?.path == "/run/jobd/fence/abc" && endless.fence?.stopMicroseconds == nil)
        #expect(fence.stoppedPath == "/run/jobd/fence/abc.stopped")
    }

    @Test func whatTheReaderWroteIsEachFilesTextOrItsError() throws {
        let output = Array("0 33188 6\nA=1\nB=\(EACCES) 0 0\n0 4480 0\n\(EFBIG) 33188 0\n".utf8)
        let reads = try #require(Trampoline.decodeReads(output, count: 4))
        #expect(try reads[0].get() == "A=1\nB=")
        #expect(reads[1].failureMessage == "cannot read the file as the job's user: Permission denied")
        #expect(reads[2].failureMessage?.hasPrefix("it is a FIFO") == true)
        #expect(reads[3].failureMessage == "the file is larger than 1048576 bytes")
        // Short, long or garbled output is the reader's failure, not a file's.
        #expect(Trampoline.decodeReads(output, count: 5) == nil)
        #expect(Trampoline.decodeReads(output, count: 3) == nil)
        #expect(Trampoline.decodeReads(Array("0 33188 99\nA=1\n".utf8), count: 1) == nil)
    }
}

extension Result<String, FileAccessError> {
    var failureMessage: String? {
        guard case .failure(let error) = self else { return nil }
        return error.message
    }
}

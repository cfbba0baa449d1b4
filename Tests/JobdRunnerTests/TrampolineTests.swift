import Glibc
import JobdConfig
@testable import JobdRunner
import Testing

/// The words jobd gives jobd-cgexec, and what it reads back from it (issue 26).
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
        #expect(Trampoline.options(cgroup: cgroup, account: account, directory: WorkingDirectory(path: "/home/alice", optional: true)) == [
            "--cgroup", "/sys/fs/cgroup/jobd/run-1", "--groups", "100,27", "--gid", "100", "--uid", "1000",
            "--directory", "-/home/alice", "--",
        ])
        // Group= alone keeps jobd's uid and its supplementary groups, as setpriv --keep-groups did.
        let groupOnly = try Self.account(user: nil, groups: nil)
        #expect(Trampoline.options(cgroup: nil, account: groupOnly, directory: nil) == ["--gid", "100", "--"])
        #expect(Trampoline.readOptions(account, files: [EnvironmentFile(path: "/etc/a.env", optional: false)]) == [
            "--groups", "100,27", "--gid", "100", "--uid", "1000", "--limit", "1048576", "--read", "--", "/etc/a.env",
        ])
    }

    /// A fleet run's fence: the supervisor's file and the job's TimeoutStopSec=, after the
    /// attributes it applies as root and before the switch of credentials.
    @Test func aFencedRunNamesItsFenceAndItsStopTimeout() throws {
        let account = try Self.account(user: "alice", groups: nil)
        let fence = RunFence(path: "/run/jobd/fence/abc")
        #expect(Trampoline.options(cgroup: nil, account: account, directory: nil, fence: (fence, .seconds(90))) == [
            "--fence", "/run/jobd/fence/abc", "--fence-stop", "90000000", "--gid", "100", "--uid", "1000", "--",
        ])
        #expect(Trampoline.options(cgroup: nil, account: nil, directory: nil, fence: (fence, .infinity)) == [
            "--fence", "/run/jobd/fence/abc", "--fence-stop", "infinity", "--",
        ])
        #expect(fence.stoppedPath == "/run/jobd/fence/abc.stopped")
    }

    @Test func theEnvironmentIsNulTerminatedEntriesAndAnEmptyOne() {
        #expect(Trampoline.encode(["PATH": "/bin", "A": "x=y z"]) == Array("A=x=y z\u{0}PATH=/bin\u{0}\u{0}".utf8))
        #expect(Trampoline.encode([:]) == [0])
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

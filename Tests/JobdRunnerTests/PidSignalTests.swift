import CJobdExec
import Glibc
import JobdProcess
@testable import JobdRunner
import JobdSystem
import JobdTestKit
import Testing

/// A pid read from `cgroup.procs` a moment ago may name another process by the time jobd signals
/// it. Orphaned `sleep`s (init's children, in this test's cgroup) stand in for such processes: a
/// run's cgroup that lists them but is elsewhere is a cgroup they have left, their pids now
/// another's.
@Suite struct PidSignalTests {
    @Test func aCgroupsSignalReachesOnlyTheProcessesStillInIt() async throws {
        let (first, second) = (try await Self.orphan(), try await Self.orphan())
        defer { kill(first, SIGKILL); kill(second, SIGKILL) }
        let listed = try Self.cgroupListing([first, second])
        defer { listed.remove() }

        RunCgroup(directory: listed.directory, path: "/system.slice/jobd.service/runs/run-elsewhere").signal(SIGTERM)
        for pid in [first, second] { try Self.expectUntouched(pid, "listed, but no longer in the run's cgroup") }

        RunCgroup(directory: listed.directory, path: try Self.ownCgroup()).signal(SIGTERM, skipping: second)
        #expect(ProcessExit.wait(for: first), "a member gets the signal")
        try Self.expectUntouched(second, "the process skipped, already signalled")
    }

    /// An adopted run's main process is the keeper's child, not jobd's: the run's cgroup signals it.
    @Test func aMainProcessNotJobdsChildIsSignalledThroughItsCgroup() async throws {
        let adopted = try await Self.orphan()
        defer { kill(adopted, SIGKILL) }
        let listed = try Self.cgroupListing([adopted])
        defer { listed.remove() }
        RunRegistry.send(SIGTERM, pid: adopted, cgroup: RunCgroup(directory: listed.directory, path: try Self.ownCgroup()))
        #expect(ProcessExit.wait(for: adopted))
    }

    /// Issue 39: a stop reaches a run's main process by its pid only while it is jobd's child and
    /// has not ended; a pid that is not (a reaped run's, reused) gets no signal from the run's stop.
    @Test func aStopSignalsByPidOnlyJobdsOwnLiveChild() async throws {
        let empty = try Self.cgroupListing([])
        defer { empty.remove() }
        let orphan = try await Self.orphan()
        defer { kill(orphan, SIGKILL) }
        RunRegistry.send(SIGTERM, pid: orphan, cgroup: RunCgroup(directory: empty.directory, path: "/run-test"))
        try Self.expectUntouched(orphan, "no SIGTERM pending or delivered")

        // jobd's own live child outside the cgroup (not entered yet) gets it.
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let child = try ProcessSpawner.spawn("/bin/cat", arguments: [], environment: [:], workingDirectory: "/", input: pair[1]).get()
        defer { [child.pidfd, child.standardOutput, child.standardError, pair[0]].forEach { close($0) } }
        RunRegistry.send(SIGTERM, pid: child.pid, cgroup: RunCgroup(directory: empty.directory, path: "/run-test"))
        var end: Int32 = 0
        #expect(waitpid(child.pid, &end, 0) == child.pid && (end & 0x7f) == SIGTERM, "status \(end)")
    }

    /// A fleet run's fence supervisor (jobd-cgexec's C) signals what it listed the same way.
    @Test func theFenceSupervisorSignalsOnlyWhatItListedThatIsStillTheRuns() async throws {
        let (first, second) = (try await Self.orphan(), try await Self.orphan())
        defer { kill(first, SIGKILL); kill(second, SIGKILL) }
        let group = try #require(Self.group(of: first))
        let cgroup = "/sys/fs/cgroup" + (try Self.ownCgroup())
        #expect(fence_signal_pinned(first, SIGTERM, group + 1, nil) == 0)
        #expect(fence_signal_pinned(first, SIGTERM, 0, "/sys/fs/cgroup/system.slice/jobd.service/runs/run-elsewhere") == 0)
        try Self.expectUntouched(first, "in neither the run's group nor its cgroup")
        #expect(fence_signal_pinned(first, SIGTERM, group, nil) == 1)
        #expect(ProcessExit.wait(for: first), "a member of the run's process group")
        #expect(fence_signal_pinned(second, SIGTERM, 0, cgroup) == 1)
        #expect(ProcessExit.wait(for: second), "a member of the run's cgroup")
    }

    static func group(of pid: pid_t) -> pid_t? {
        (try? FileSystem.readTextFile("/proc/\(pid)/stat").get()).flatMap(ProcessStat.init)?.group
    }

    /// A `sleep` whose parent has exited: init's (this process is no subreaper), as a process of a
    /// run whose parent reaps it would be.
    static func orphan() async throws -> pid_t {
        let started = try await ProcessSpawnerTests.lines(of: "/bin/sh", ["-c", "sleep 300 </dev/null >/dev/null 2>&1 & echo $!"])
        let pid = try #require(started.lines.first.flatMap { pid_t($0) })
        let stat = try FileSystem.readTextFile("/proc/\(pid)/stat").get()
        let parent = stat.split(separator: ")").last?.split(separator: " ").dropFirst().first.flatMap { pid_t($0) }
        try #require(parent != nil && parent != getpid(), "the orphan is another's child (this process is no subreaper): \(stat)")
        #expect(ProcessSpawner.hasEnded(pid), "not this process's child (ECHILD)")
        return pid
    }

    /// A directory with a `cgroup.procs` that lists `pids` (none: an empty one).
    static func cgroupListing(_ pids: [pid_t]) throws -> (directory: String, remove: () -> Void) {
        let directory = "/tmp/jobd-pid-signal-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let created = mkdir(directory, 0o755) == 0 ? creat(directory + "/cgroup.procs", 0o644) : -1
        try #require(created >= 0 && close(created) == 0)
        try #require(CgroupFile.write(directory + "/cgroup.procs", pids.map(String.init).joined(separator: "\n") + "\n") == nil)
        return (directory, { unlink(directory + "/cgroup.procs"); rmdir(directory) })
    }

    static func ownCgroup() throws -> String {
        let text = try FileSystem.readTextFile("/proc/self/cgroup").get()
        return String(try #require(CgroupText.unifiedPath(procSelfCgroup: text)))
    }

    /// Alive, with no signal pending (a SIGTERM sent would be pending still, or have ended it).
    static func expectUntouched(_ pid: pid_t, _ comment: Comment) throws {
        let status = try FileSystem.readTextFile("/proc/\(pid)/status").get().split(separator: "\n")
        let state = status.first { $0.hasPrefix("State:") }.map { $0.dropFirst(6).trimmingPrefix("\t") }
        #expect(state != nil && !state!.hasPrefix("Z") && !state!.hasPrefix("X") && status.contains("ShdPnd:\t0000000000000000")
                && status.contains("SigPnd:\t0000000000000000"),
                "\(comment): \(status.filter { $0.hasPrefix("State") || $0.contains("Pnd:") })")
    }
}

import Foundation
import JobdTestKit
import Testing

/// Issue 37: without a cgroup to hold `pids.max` (runs tracked by process group), a user's run
/// had jobd's own `RLIMIT_NPROC`, above `pid_max`: nothing bounded the tasks one user's job could
/// take. A user's run now gets its `TasksMax=`, or `DefaultTasksMax=`, as `RLIMIT_NPROC`.
@Suite(.serialized) struct UserTasksWithoutCgroupTests {
    @Test func aUsersForkingRunWithoutACgroupStopsAtDefaultTasksMax() throws {
        let setup = try UserJobsTests.Setup()
        let alice = setup.alice
        try "[Daemon]\nDefaultTasksMax=20\n".write(toFile: setup.config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        #expect(try setup.jobctl(["reload"]).0 == 0)
        // Forks sleeps until the kernel refuses one (dash's subshell then exits) or 200 of them
        // (so that a run without the limit ends too), says how far it got, and ends its sleeps.
        let forker = """
            [Job]
            OnStartupSec=1h
            ExecStart=/bin/sh -c 'echo limit=$$(ulimit -p); ( n=0; while [ $$n -lt 200 ]; do sleep 300 & n=$$((n+1)); echo forked $$n; done ); pkill -x -u $$(id -u) sleep; true'
            """
        let (saved, output) = try setup.jobctl(["--user", "edit", "forker"], as: alice, editing: forker)
        #expect(saved == 0, "\(output)")
        let (status, run) = try setup.jobctl(["--user", "run", "forker", "--wait"], as: alice)
        #expect(status == 0, "\(run)")
        #expect(run.contains("limit=20"), "\(run)")
        let forked = run.split(separator: "\n").compactMap { line in
            line.hasPrefix("forked ") ? Int(line.dropFirst("forked ".count)) : nil
        }
        // Its shell and the subshell are two of the user's 20 tasks, and so is every other task of
        // alice's uid (RLIMIT_NPROC counts them all: her jobctl's threads too).
        #expect((1...18).contains(forked.max() ?? 0), "\(forked)")
        #expect(try setup.jobctl(["status"]).0 == 0)
    }
}

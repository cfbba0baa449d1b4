import Foundation
import JobdTestKit
import Testing

/// Issue 37: one user's runs cannot take the tasks root's runs need. With a delegated cgroup, all
/// of a user's runs share `runs/user-UID/pids.max`; root's and users' runs shared `runs/pids.max`
/// alone, and one user's runs took it all. Without a cgroup to hold `pids.max` (runs tracked by
/// process group), a user's run had jobd's own `RLIMIT_NPROC`, above `pid_max`; it now gets
/// `DefaultTasksMax=` as `RLIMIT_NPROC`.
@Suite(.serialized) struct UserTaskLimitTests {
    /// Forks sleeps until the kernel refuses one (dash's subshell then exits) or 300 of them, says
    /// "full", and holds its tasks.
    static let forker = """
        [Job]
        OnStartupSec=1h
        ExecStart=/bin/sh -c '( n=0; while [ $$n -lt 300 ]; do sleep 300 & n=$$((n+1)); echo forked $$n; done ); echo full; exec sleep 300'
        """

    @Test func oneUsersForkingRunsTogetherStayWithinTheirCgroupAndRootsJobStillForks() throws {
        try Requirement.root("to create cgroups and users")
        let cgroup = try DelegatedTestCgroup()
        let pids = try #require(cgroup.pidsDirectory, "this machine has no pids controller to give a test")
        // jobd's 400 leave the runs 200: four forkers of 64 each would take them all.
        try "400".write(toFile: pids + "/pids.max", atomically: false, encoding: .utf8)
        let setup = try UserJobsTests.Setup(cgroup: cgroup, conf: "[Daemon]\nDefaultTasksMax=64\n")
        let alice = setup.alice
        try setup.config.write(job: "root-forks", "[Job]\nExecStart=/bin/sh -c '/bin/true && echo forked-ok'\n")
        #expect(try setup.jobctl(["reload"]).0 == 0)
        // One after the other, each until it is full or, with no task left to fork its subshell, ends.
        let forkers = (1...4).map { "forker\($0)" }
        for job in forkers {
            let name = "\(alice.name):\(job)"
            #expect(try setup.jobctl(["--user", "edit", job], as: alice, editing: Self.forker).0 == 0)
            let from = setup.daemon.lines.count
            #expect(try setup.jobctl(["--user", "run", job], as: alice).0 == 0)
            try setup.daemon.waitForLine(from: from, "\(job) is full or ended") {
                let line = LogLine($0)
                return line.matches(event: "run.output", fields: ["JOB": name]) && line.message == "full"
                    || line.matches(event: "run.exit", fields: ["JOB": name])
            }
        }
        func read(_ file: String) -> String? {
            (try? String(contentsOfFile: pids + "/" + file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let users = "runs/user-\(alice.uid)"
        #expect(read(users + "/pids.max") == "64", "DefaultTasksMax=64 for all of alice's runs")
        #expect((Int(read(users + "/pids.current") ?? "") ?? 0) <= 64)
        let forked = setup.daemon.events("run.output").filter { $0.field("JOB")?.hasPrefix(alice.name + ":forker") == true }
        let most = Dictionary(grouping: forked, by: { $0.field("JOB") ?? "" }).mapValues { lines in
            lines.compactMap { $0.message.split(separator: " ").last.flatMap { Int($0) } }.max() ?? 0
        }
        #expect(most.values.reduce(0, +) < 64, "each forker's shell and subshell count too: \(most)")
        // With alice's runs at their limit, root's job forks.
        let (status, output) = try setup.jobctl(["run", "root-forks", "--wait"])
        #expect(status == 0 && output.contains("forked-ok"), "\(output)")
        // The forkers still holding their tasks are stopped.
        for job in forkers where !setup.daemon.events("run.exit").contains(where: { $0.field("JOB") == "\(alice.name):\(job)" }) {
            _ = try setup.jobctl(["stop", "\(alice.name):\(job)"])
            try setup.daemon.waitForEvent("run.exit", fields: ["JOB": "\(alice.name):\(job)"])
        }
    }

    @Test func aUsersForkingRunWithoutACgroupStopsAtDefaultTasksMax() throws {
        let setup = try UserJobsTests.Setup()
        // Bob: RLIMIT_NPROC counts every task of the uid, and the zombies of alice's forkers in the
        // test above (the same uid, reused by useradd) may not all be reaped yet.
        let bob = setup.bob
        try "[Daemon]\nDefaultTasksMax=20\n".write(toFile: setup.config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        #expect(try setup.jobctl(["reload"]).0 == 0)
        // Forks sleeps until the kernel refuses one (dash's subshell then exits) or 200 of them
        // (so that a run without the limit ends too), says how far it got, and ends its sleeps.
        let forker = """
            [Job]
            OnStartupSec=1h
            ExecStart=/bin/sh -c 'echo limit=$$(ulimit -p); ( n=0; while [ $$n -lt 200 ]; do sleep 300 & n=$$((n+1)); echo forked $$n; done ); pkill -x -u $$(id -u) sleep; true'
            """
        let (saved, output) = try setup.jobctl(["--user", "edit", "forker"], as: bob, editing: forker)
        #expect(saved == 0, "\(output)")
        let (status, run) = try setup.jobctl(["--user", "run", "forker", "--wait"], as: bob)
        #expect(status == 0, "\(run)")
        #expect(run.contains("limit=20"), "\(run)")
        let forked = run.split(separator: "\n").compactMap { line in
            line.hasPrefix("forked ") ? Int(line.dropFirst("forked ".count)) : nil
        }
        // Its shell and the subshell are two of the user's 20 tasks, and so is every other task of
        // bob's uid (RLIMIT_NPROC counts them all: his jobctl's threads too).
        #expect((1...18).contains(forked.max() ?? 0), "\(forked)")
        #expect(try setup.jobctl(["status"]).0 == 0)
    }
}

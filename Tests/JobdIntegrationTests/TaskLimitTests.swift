import Foundation
import JobdTestKit
import Testing

/// Issue 26: one job cannot starve jobd or the other jobs of tasks. Runs live in a cgroup `runs`
/// whose `pids.max` keeps a reserve of jobd's own limit for jobd, and each run's cgroup has its
/// job's `TasksMax=` (or jobd.conf's `DefaultTasksMax=`); where the pids controller sits on the
/// cgroup v1 hierarchy, as on this project's test machines, jobd uses it there.
@Suite(.serialized) struct TaskLimitTests {
    /// jobd inside a delegated cgroup whose task limit (the unit's `TasksMax=`) is 600.
    static func setUp(conf: String) throws -> (PrivilegeBoundaryTests.Setup, pids: String) {
        try Requirement.root("to create cgroups")
        let cgroup = try DelegatedTestCgroup()
        let pids = try #require(cgroup.pidsDirectory, "this machine has no pids controller to give a test")
        try "600".write(toFile: pids + "/pids.max", atomically: false, encoding: .utf8)
        return (try PrivilegeBoundaryTests.Setup(cgroup: cgroup, conf: conf), pids)
    }

    @Test func aForkHappyJobStopsAtItsTasksMaxWhileJobdAnswersAndOtherJobsStart() throws {
        // The subshell forks sleeps until the kernel refuses one (dash then exits), saying how many
        // it had; the job's shell says "full" and stays, holding its tasks.
        let forker = """
            [Job]
            ExecStart=/bin/sh -c '( n=0; while :; do sleep 300 & n=$$((n+1)); echo forked $$n; done ); echo full; exec sleep 300'
            TasksMax=20
            """
        let (setup, pids) = try Self.setUp(conf: "[Daemon]\nDefaultTasksMax=64\n")
        func read(_ file: String) -> String? {
            (try? String(contentsOfFile: pids + "/" + file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try setup.config.write(job: "forker", forker)
        try setup.config.write(job: "other", """
            [Job]
            ExecStart=/bin/sh -c 'cat \(pids)/runs/run-$$JOBD_RUN_ID/pids.max'
            """)
        #expect(try setup.jobctl(["reload"]).0 == 0)
        #expect(read("runs/pids.max") == "344", "the unit's 600 less the 256 kept for jobd")

        #expect(try setup.jobctl(["run", "forker"]).0 == 0)
        try setup.daemon.waitForLine("the forker is full") { LogLine($0).matches(event: "run.output", fields: ["JOB": "forker"]) && LogLine($0).message == "full" }
        let start = try #require(setup.daemon.events("run.start").first { $0.field("JOB") == "forker" })
        let runID = try #require(start.field("JOBD_RUN_ID"))
        #expect(start.field("JOBD_CGROUP")?.hasSuffix("/runs/run-" + runID) == true, "\(start.field("JOBD_CGROUP") ?? "no cgroup")")
        #expect(read("runs/run-\(runID)/pids.max") == "20")
        // Its shell, the subshell and 18 sleeps were 20 tasks: the 19th sleep was refused.
        let forked = setup.daemon.events("run.output").filter { $0.field("JOB") == "forker" }.compactMap { line in
            line.message.split(separator: " ").last.flatMap { Int($0) }
        }
        #expect(forked.max() == 18, "\(forked)")
        #expect(read("runs/run-\(runID)/pids.current") == "19")
        let refused = read("runs/run-\(runID)/pids.events")?.split(separator: " ").last.flatMap { Int($0) } ?? 0
        #expect(refused > 0, "pids.events counts the refused fork")

        // With the forker at its limit, jobd answers and another job starts, with the default limit.
        let status = try setup.jobctl(["status"])
        #expect(status.0 == 0, "\(status.1)")
        let other = try setup.jobctl(["run", "other", "--wait"])
        #expect(other.0 == 0, "\(other.1)")
        #expect(other.1.split(separator: "\n").contains("64"), "DefaultTasksMax=64: \(other.1)")
        #expect(try setup.jobctl(["stop", "forker"]).0 == 0)
        try setup.daemon.waitForEvent("run.exit", fields: ["JOB": "forker"])
    }

    @Test func withoutAPidsControllerTasksMaxIsAnErrorAtItsLineAndOtherJobsRun() throws {
        // Without a delegated cgroup jobd tracks runs by process group: no pids.max to write, nor
        // any resource key (issue 27).
        let config = try TemporaryConfiguration(jobs: [
            "limited": "[Job]\nExecStart=/bin/true\nTasksMax=20\nMemoryMax=1G\nCPUQuota=50%\n", "plain": "[Job]\nExecStart=/bin/true\n",
        ])
        let runtime = config.path + "/run"
        let daemon = try DaemonProcess(product: "jobd", arguments: ["--config-dir", config.path, "--runtime-dir", runtime])
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
        try daemon.waitForEvent("daemon.ready")
        #expect(daemon.lines.contains { $0.contains("limited.job:3: error: TasksMax= cannot be applied: runs are tracked by process group") },
                "\(daemon.lines.prefix(8))")
        for (line, key) in [(4, "MemoryMax"), (5, "CPUQuota")] {
            #expect(daemon.lines.contains { $0.contains("limited.job:\(line): error: \(key)= cannot be applied: runs are tracked by process group") })
        }
        let list = try DaemonProcess(product: "jobctl", arguments: ["list", "--runtime-dir", runtime])
        _ = try list.waitForExit()
        #expect(list.lines.contains { $0.contains("bad-setting limited") }, "\(list.lines)")
        let plain = try DaemonProcess(product: "jobctl", arguments: ["run", "plain", "--wait", "--runtime-dir", runtime])
        #expect(try plain.waitForExit() == 0)
    }
}

import Foundation
import JobdTestKit
import Testing

/// Issue 27: a run's cgroup is limited as systemd limits a service's (`MemoryMax=`, `CPUQuota=`,
/// `CPUWeight=`…), on the unified hierarchy or, where the controller is bound to cgroup v1 as on
/// this project's test machines, on v1 as systemd 252 does there; a run the kernel's OOM killer
/// kills ends `oom-kill`; a key this jobd cannot apply is an error at load, with the reason.
@Suite(.serialized) struct ResourceControlDaemonTests {
    /// jobd inside a delegated cgroup (with its v1 twins), writing metrics.
    static func setUp(_ controller: String) throws -> (PrivilegeBoundaryTests.Setup, DelegatedTestCgroup, metrics: String) {
        try Requirement.root("to create cgroups")
        let cgroup = try DelegatedTestCgroup()
        let unified = (try? String(contentsOfFile: cgroup.directory + "/cgroup.controllers", encoding: .utf8)) ?? ""
        try #require(unified.split(whereSeparator: \.isWhitespace).contains(Substring(controller)) || cgroup.legacy[controller] != nil,
                     "this machine has no \(controller) controller to give a test")
        let metrics = NSTemporaryDirectory() + "jobd-resources-\(UUID().uuidString).prom"
        return (try PrivilegeBoundaryTests.Setup(cgroup: cgroup, conf: "[Daemon]\nMetricsFile=\(metrics)\n"), cgroup, metrics)
    }

    /// A shell line that prints a file of the run's own cgroup: in its twin on `controller`'s v1
    /// hierarchy where jobd has one, else in its cgroup on the unified hierarchy.
    static func ownFile(_ cgroup: DelegatedTestCgroup, _ controller: String, v1 file: String, v2 unifiedFile: String) -> String {
        let base = cgroup.legacy[controller].map { ($0, file) } ?? (cgroup.directory, unifiedFile)
        return "cat \(base.0)/runs/run-$$JOBD_RUN_ID/\(base.1)"
    }

    @Test func aRunPastItsMemoryMaxIsKilledByTheKernelAndEndsOOMKillEverywhereJobdReportsIt() throws {
        let (setup, cgroup, metrics) = try Self.setUp("memory")
        defer { try? FileManager.default.removeItem(atPath: metrics) }
        // tail keeps all of a stream without a newline: 200 MB against a limit of 50.
        try setup.config.write(job: "hog", "[Job]\nMemoryMax=50M\nExecStart=/bin/sh -c 'head -c 200M /dev/zero | tail'\n")
        try setup.config.write(job: "within", """
            [Job]
            MemoryMax=50M
            ExecStart=/bin/sh -c '\(Self.ownFile(cgroup, "memory", v1: "memory.limit_in_bytes", v2: "memory.max")); head -c 20M /dev/zero | tail | wc -c'
            """)
        #expect(try setup.jobctl(["reload"]).0 == 0)

        let hog = try setup.jobctl(["run", "hog", "--wait"])
        #expect(hog.0 != 0, "\(hog.1)")
        let exit = try #require(setup.daemon.events("run.exit").first { $0.field("JOB") == "hog" })
        #expect(exit.field("JOBD_RESULT") == "oom-kill", "\(exit)")
        #expect(exit.message.hasSuffix("oom-kill") || exit.message.contains(": oom-kill"), "\(exit.message)")
        let status = try setup.jobctl(["status", "hog"])
        #expect(status.0 == 3, "a failed last run: \(status.1)")
        #expect(status.1.contains("oom-kill"), "\(status.1)")
        let list = try setup.jobctl(["list"])
        #expect(list.1.split(separator: "\n").contains { $0.contains("hog") && $0.contains("oom-kill") }, "\(list.1)")

        // Under the limit, a run is untouched, and its cgroup has the limit.
        let within = try setup.jobctl(["run", "within", "--wait"])
        #expect(within.0 == 0, "\(within.1)")
        #expect(within.1.split(separator: "\n").contains("52428800"), "MemoryMax=50M: \(within.1)")
        #expect(within.1.split(separator: "\n").contains("20971520"), "\(within.1)")

        // A run whose main process outlives the kill is stopped then, as systemd's OOMPolicy=stop
        // stops a service (RuntimeMaxSec= would end it as a timeout otherwise).
        try setup.config.write(job: "survivor", """
            [Job]
            MemoryMax=50M
            RuntimeMaxSec=120
            ExecStart=/bin/sh -c '(head -c 200M /dev/zero | tail); exec sleep 600'
            """)
        #expect(try setup.jobctl(["reload"]).0 == 0)
        let survivor = try setup.jobctl(["run", "survivor", "--wait"])
        #expect(survivor.0 != 0, "\(survivor.1)")
        let stop = try #require(setup.daemon.events("run.stop").first { $0.field("JOB") == "survivor" }, "no run.stop of the survivor")
        #expect(stop.field("JOBD_REASON") == "oom-kill" && stop.message.contains("OOM killer"), "\(stop)")
        let survivorExit = try #require(setup.daemon.events("run.exit").first { $0.field("JOB") == "survivor" })
        #expect(survivorExit.field("JOBD_RESULT") == "oom-kill" && survivorExit.field("EXIT_STATUS") == "TERM", "\(survivorExit)")

        setup.daemon.signal(SIGTERM)
        _ = try setup.daemon.waitForExit()
        let samples = try MetricsFileTests.samples(of: metrics)
        #expect(samples["jobd_job_runs_total{job=hog,result=oom-kill}"] == 1, "\(samples.filter { $0.key.contains("runs_total") })")
        #expect(samples["jobd_job_last_failed{job=hog}"] == 1)
    }

    @Test func cpuQuotaAndCPUWeightAreTheRunsCgroupValues() throws {
        let (setup, cgroup, metrics) = try Self.setUp("cpu")
        defer { try? FileManager.default.removeItem(atPath: metrics) }
        let v1 = cgroup.legacy["cpu"] != nil
        let show = v1
            ? [Self.ownFile(cgroup, "cpu", v1: "cpu.cfs_period_us", v2: ""), Self.ownFile(cgroup, "cpu", v1: "cpu.cfs_quota_us", v2: ""),
               Self.ownFile(cgroup, "cpu", v1: "cpu.shares", v2: "")]
            : [Self.ownFile(cgroup, "cpu", v1: "", v2: "cpu.max"), Self.ownFile(cgroup, "cpu", v1: "", v2: "cpu.weight")]
        try setup.config.write(job: "quota", "[Job]\nCPUQuota=20%\nCPUWeight=50\nExecStart=/bin/sh -c '\(show.joined(separator: "; "))'\n")
        try setup.config.write(job: "plain", "[Job]\nExecStart=/bin/sh -c 'echo plain'\n")
        #expect(try setup.jobctl(["reload"]).0 == 0)
        let quota = try setup.jobctl(["run", "quota", "--wait"])
        #expect(quota.0 == 0, "\(quota.1)")
        let lines = quota.1.split(separator: "\n").map(String.init)
        if v1 {
            // systemd 252 on v1: a period of 100 ms, 20% of it, and CPUWeight=50 as 512 shares.
            #expect(lines.contains("100000") && lines.contains("20000") && lines.contains("512"), "\(lines)")
        } else {
            #expect(lines.contains("20000 100000") && lines.contains("50"), "\(lines)")
        }
        // A job without the keys does not enter the v1 cpu hierarchy at all.
        let plain = try setup.jobctl(["run", "plain", "--wait"])
        #expect(plain.0 == 0, "\(plain.1)")
        let start = try #require(setup.daemon.events("run.start").first { $0.field("JOB") == "plain" })
        if let cpu = cgroup.legacy["cpu"], let runID = start.field("JOBD_RUN_ID") {
            #expect(!FileManager.default.fileExists(atPath: cpu + "/runs/run-" + runID))
        }
    }

    @Test func aKeyThisHierarchyCannotTakeIsABadSettingWithTheReasonAndOtherJobsRun() throws {
        let (setup, cgroup, metrics) = try Self.setUp("memory")
        defer { try? FileManager.default.removeItem(atPath: metrics) }
        try setup.config.write(job: "high", "[Job]\nExecStart=/bin/true\nMemoryHigh=40M\n")
        try setup.config.write(job: "swap", "[Job]\nExecStart=/bin/true\nMemorySwapMax=0\n")
        try setup.config.write(job: "plain", "[Job]\nExecStart=/bin/true\n")
        let reload = try setup.jobctl(["reload"])
        let list = try setup.jobctl(["list"])
        if cgroup.legacy["memory"] != nil {
            // systemd 252 ignores both on v1: jobd refuses them, at their line, with the reason.
            #expect(reload.0 != 0)
            #expect(reload.1.contains("high.job:3: error: MemoryHigh= cannot be applied: the memory controller is on the cgroup v1 hierarchy"),
                    "\(reload.1)")
            #expect(reload.1.contains("swap.job:3: error: MemorySwapMax= cannot be applied: the memory controller is on the cgroup v1 hierarchy"),
                    "\(reload.1)")
            #expect(list.1.contains("bad-setting high") && list.1.contains("bad-setting swap"), "\(list.1)")
        } else {
            #expect(!list.1.contains("bad-setting high"), "\(list.1)")
        }
        #expect(try setup.jobctl(["run", "plain", "--wait"]).0 == 0)
    }
}

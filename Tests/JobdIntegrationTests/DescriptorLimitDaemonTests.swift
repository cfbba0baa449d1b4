import Foundation
import JobdTestKit
import Testing

/// Issue 39: jobd.service keeps systemd's soft RLIMIT_NOFILE of 1,024, three descriptors a run in
/// flight: jobd raises its own soft limit to its hard one, and every run keeps the soft limit jobd
/// started with (a program that uses select() breaks above 1,024), whether started directly, in its
/// cgroup, or through jobd-cgexec; a job's own LimitNOFILE= wins.
@Suite(.serialized) struct DescriptorLimitDaemonTests {
    static let jobs = [
        "plain": "[Job]\nOnStartupSec=1h\nExecStart=/bin/sh -c 'echo $(ulimit -Sn) $(ulimit -Hn)'\n",
        "trampoline": "[Job]\nOnStartupSec=1h\nUMask=0022\nExecStart=/bin/sh -c 'echo $(ulimit -Sn) $(ulimit -Hn)'\n",
        "own": "[Job]\nOnStartupSec=1h\nLimitNOFILE=2048\nExecStart=/bin/sh -c 'echo $(ulimit -Sn) $(ulimit -Hn)'\n",
    ]

    func runsKeepTheSoftLimitJobdStartedWith(cgroup: DelegatedTestCgroup?) throws {
        let config = try TemporaryConfiguration(jobs: Self.jobs)
        let runtime = config.path + "/run"
        let jobd = DaemonProcess.productsDirectory + "/jobd"
        let lowered = ["-c", "ulimit -Sn 1024 && exec \"$0\" \"$@\"", jobd, "--config-dir", config.path, "--runtime-dir", runtime]
        let (executable, words) = cgroup?.launch("/bin/sh", lowered) ?? ("/bin/sh", lowered)
        let daemon = try DaemonProcess(absolutePath: executable, arguments: words)
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
        try daemon.waitForEvent("daemon.ready")
        let limits = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/limits", encoding: .utf8)
        let files = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?.split(separator: " ").map(String.init))
        let (soft, hard) = (files[3], files[4])
        try #require(hard != "1024", "the machine's hard limit leaves nothing to raise: \(files)")
        #expect(soft == hard, "jobd's own soft limit is raised to its hard one: \(files)")
        let jobctl = Jobctl(runtime: runtime, daemon: daemon, environment: nil)
        for job in ["plain", "trampoline", "own"] {
            let (status, output) = try jobctl(["run", job, "--wait"])
            #expect(status == 0, "\(job): \(output)")
        }
        let lines = daemon.events("run.output").map(\.message)
        #expect(lines == ["1024 \(hard)", "1024 \(hard)", "2048 2048"], "\(lines)")
    }

    @Test func runsKeepTheSoftLimitJobdStartedWithUnderProcessGroups() throws {
        try runsKeepTheSoftLimitJobdStartedWith(cgroup: nil)
    }

    @Test func runsKeepTheSoftLimitJobdStartedWithInTheirCgroups() throws {
        try Requirement.root("to create cgroups")
        try runsKeepTheSoftLimitJobdStartedWith(cgroup: try DelegatedTestCgroup())
    }

    /// Under an RLIMIT_NOFILE of 200, jobd keeps 128 descriptors and shares the rest three a run:
    /// 24 runs in flight. 70 runs due at once (210 descriptors: without the bound about a sixth of
    /// them failed to start for want of a pipe): 24 start, 46 wait for a slot, and they start as the
    /// first ones end.
    @Test func runsBeyondWhatJobdsDescriptorsAllowWaitForASlot() throws {
        let directory = try TemporaryConfiguration(jobs: [:])
        let release = directory.path + "/release"
        let blocked = "[Job]\nOnStartupSec=1s\nAccuracySec=1us\nExecStart=/bin/sh -c 'while [ ! -e \(release) ]; do sleep 0.05; done'\n"
        let config = try TemporaryConfiguration(jobs: Dictionary(uniqueKeysWithValues: (0..<70).map { ("blocked-\($0)", blocked) }))
        let jobd = DaemonProcess.productsDirectory + "/jobd"
        let lowered = ["-c", "ulimit -n 200 && exec \"$0\" \"$@\"", jobd, "--config-dir", config.path, "--runtime-dir", config.path + "/run"]
        let daemon = try DaemonProcess(absolutePath: "/bin/sh", arguments: lowered)
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
        try daemon.waitForLine("the bound") { $0.contains("at most 24 runs in flight at once: jobd's RLIMIT_NOFILE is 200") }
        var (started, waited) = (0, 0)
        for _ in 0..<24 { started = try daemon.waitForEvent("run.start", from: started) + 1 }
        for _ in 0..<46 { waited = try daemon.waitForEvent("run.wait", fields: ["JOBD_REASON": "max-concurrent-runs"], from: waited) + 1 }
        // Nothing ends before the release: no 25th run can have started.
        #expect(daemon.events("run.start").count == 24)
        #expect(daemon.events("run.exit").isEmpty, "no run failed to start: \(daemon.events("run.exit"))")
        _ = FileManager.default.createFile(atPath: release, contents: nil)
        var ended = 0
        for _ in 0..<70 { ended = try daemon.waitForEvent("run.exit", from: ended) + 1 }
        let exits = daemon.events("run.exit")
        #expect(exits.count == 70 && exits.allSatisfy { $0.field("JOBD_RESULT") == "success" }, "\(exits)")
        #expect(Set(daemon.events("run.start").compactMap { $0.field("JOB") }).count == 70)
    }
}

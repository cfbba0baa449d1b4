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
}

import Foundation
import JobdTestKit
import Testing

/// Issue 39: under systemd's soft RLIMIT_NOFILE of 1,024 jobd could hold only about 330 runs in
/// flight (three descriptors each). jobd raises its own soft limit to its hard limit, and every run
/// gets the limit jobd was started with (a soft limit above 1,024 breaks programs that use
/// select()), started directly or through the trampoline; a job's own `LimitNOFILE=` wins.
@Suite struct DescriptorLimitDaemonTests {
    @Test func jobdRaisesItsOwnLimitAndRunsKeepTheOneItWasStartedWith() throws {
        let config = try TemporaryConfiguration()
        let runtime = config.path + "/run"
        let probe = "ExecStart=/bin/sh -c 'echo $$(ulimit -Sn) $$(ulimit -Hn)'\n"
        try config.write(job: "direct", "[Job]\nOnStartupSec=1h\n" + probe)
        // Nice= takes the trampoline (jobd-cgexec), whose exec plan carries the limit.
        try config.write(job: "trampoline", "[Job]\nOnStartupSec=1h\nNice=1\n" + probe)
        try config.write(job: "own-limit", "[Job]\nOnStartupSec=1h\nLimitNOFILE=300:400\n" + probe)
        var hard = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &hard)
        try #require(hard.rlim_max > 512, "the hard limit leaves room to raise a soft limit of 512")
        // Started as systemd starts a service, with a soft limit below its hard one.
        let jobd = DaemonProcess.productsDirectory + "/jobd"
        let daemon = try DaemonProcess(absolutePath: "/bin/sh", arguments: [
            "-c", "ulimit -Sn 512 && exec \"$0\" \"$@\"", jobd, "--config-dir", config.path, "--runtime-dir", runtime,
        ])
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
        try daemon.waitForEvent("daemon.ready")
        let limits = try String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)
        let open = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?.split(separator: " ", omittingEmptySubsequences: true)
        let expected = String(min(UInt64(hard.rlim_max), UInt64(1_048_576)))
        #expect(open.map { Array($0.dropFirst(3).prefix(2)).map(String.init) } == [expected, String(hard.rlim_max)],
                "jobd's own soft limit is raised to its hard one: \(limits)")
        let jobctl = Jobctl(runtime: runtime, daemon: daemon, environment: nil)
        let direct = try jobctl(["run", "direct", "--wait"])
        #expect(direct.0 == 0 && direct.1.contains("512 \(hard.rlim_max)"), "a run gets the limit jobd was started with: \(direct.1)")
        let trampoline = try jobctl(["run", "trampoline", "--wait"])
        #expect(trampoline.0 == 0 && trampoline.1.contains("512 \(hard.rlim_max)"), "also through the trampoline: \(trampoline.1)")
        let own = try jobctl(["run", "own-limit", "--wait"])
        #expect(own.0 == 0 && own.1.contains("300 400"), "LimitNOFILE= wins: \(own.1)")
    }
}

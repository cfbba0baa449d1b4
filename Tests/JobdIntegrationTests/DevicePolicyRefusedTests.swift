import Foundation
import JobdTestKit
import Testing

/// Issue 37: where bpf(2) is refused (a container's default seccomp filter), jobd-cgexec failed
/// every run of a `PrivateDevices=` job; systemd 252 keeps the private /dev and goes on without the
/// device-cgroup program, with a warning. jobd runs here under a real seccomp filter (libseccomp,
/// as a container runtime loads one) that makes bpf(2) fail with EPERM, inherited by every run;
/// jobd warns at load, and each run's output says it once.
@Suite(.serialized) struct DevicePolicyRefusedTests {
    /// Loads a filter refusing bpf(2) with EPERM (no_new_privs left off, as root may), then
    /// executes the rest of its arguments.
    static let refusingBPF = """
        import ctypes, os, sys
        seccomp = ctypes.CDLL("libseccomp.so.2")
        seccomp.seccomp_init.restype = ctypes.c_void_p
        seccomp.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
        seccomp.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
        seccomp.seccomp_load.argtypes = [ctypes.c_void_p]
        filter = seccomp.seccomp_init(0x7fff0000)  # SCMP_ACT_ALLOW
        assert seccomp.seccomp_attr_set(filter, 3, 0) == 0  # SCMP_FLTATR_CTL_NNP
        assert seccomp.seccomp_rule_add(filter, 0x00050000 | 1, seccomp.seccomp_syscall_resolve_name(b"bpf"), 0) == 0  # ERRNO(EPERM)
        assert seccomp.seccomp_load(filter) == 0
        os.execv(sys.argv[1], sys.argv[1:])
        """

    @Test func privateDevicesWhereBPFIsRefusedKeepsThePrivateDevAndWarnsAtLoadAndInTheRunsLog() throws {
        try Requirement.root("to create cgroups and sandbox runs")
        _ = try Requirement.tools("/usr/bin/python3", for: "loading a seccomp filter with libseccomp")
        let cgroup = try DelegatedTestCgroup()
        let config = try TemporaryConfiguration()
        let runtime = config.path + "/run"
        // The private /dev has no /dev/kmsg; the host's has.
        try config.write(job: "devices", """
            [Job]
            PrivateDevices=yes
            ExecStart=/bin/sh -c 'test -e /dev/kmsg && echo host-dev || echo private-dev'
            """)
        let jobd = DaemonProcess.productsDirectory + "/jobd"
        let (executable, words) = cgroup.launch("/usr/bin/python3", ["-c", Self.refusingBPF, jobd, "--config-dir", config.path, "--runtime-dir", runtime])
        let daemon = try DaemonProcess(absolutePath: executable, arguments: words)
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
        try daemon.waitForEvent("daemon.ready")
        // At load, where it can be told: the job's device policy will be left out.
        #expect(daemon.lines.contains {
            $0.contains("devices.job:2: warning: PrivateDevices= is applied without its device policy: the kernel refuses BPF device programs")
        }, "\(daemon.lines.prefix(10))")
        let (status, output) = try Jobctl(runtime: runtime, daemon: daemon, environment: nil)(["run", "devices", "--wait"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("private-dev") && !output.contains("host-dev"), "\(output)")
        let warnings = output.split(separator: "\n").filter { $0.contains("cannot load the device policy's BPF program: Operation not permitted") }
        #expect(warnings.count == 1 && warnings[0].contains("goes on without its device policy"), "\(output)")
    }
}

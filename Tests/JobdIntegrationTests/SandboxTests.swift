import Foundation
import JobdTestKit
import Testing

/// Issue 27, item 3: a run is sandboxed as systemd 252 sandboxes a service with the same keys
/// (systemd.exec(5)). One probe, run by jobd under each key set, reports what it can see and do;
/// each value asserted is the one systemd.exec(5) documents for the key (the first set is
/// man-db.service's, the second logrotate.service's, on Debian 12).
@Suite(.serialized) struct SandboxTests {
    /// What the probe does: writability through access(2) (EROFS on a read-only mount), the mode
    /// of /root, whether the host's /tmp is visible (a marker the test made there), the device nodes
    /// of /dev beyond the pseudo devices, the interfaces, and the errno of calls a sandbox forbids.
    /// Lines are flushed before `swapoff`, which the allow-list job is killed for.
    static let probe = #"""
    import ctypes, errno, mmap, os, shutil, socket, sys, tempfile
    libc = ctypes.CDLL(None, use_errno=True)
    def report(key, value):
        print(f"{key}={value}", flush=True)
    def call(result):
        return "ok" if result == 0 else errno.errorcode[ctypes.get_errno()]
    def writable(path):
        return "rw" if os.access(path, os.W_OK) else "ro"
    for key, path in [("usr", "/usr"), ("etc", "/etc"), ("var", "/var/lib"), ("procsys", "/proc/sys/kernel/domainname"),
                      ("cgroup", "/sys/fs/cgroup"), ("tmp-writable", "/tmp")] + [(p.split("/")[-1], p) for p in sys.argv[2:]]:
        report(key, writable(path) if os.path.exists(path) else "missing")
    report("root-mode", oct(os.stat("/root").st_mode & 0o7777))
    report("root-writable", writable("/root"))
    report("tmp", "host" if os.path.exists("/tmp/" + sys.argv[1]) else "private")
    pseudo = {"null", "zero", "full", "random", "urandom", "tty", "ptmx"}
    nodes = [n for n in os.listdir("/dev") if n not in pseudo and os.path.exists("/dev/" + n)
             and not os.path.isdir("/dev/" + n) and not os.path.islink("/dev/" + n)]
    report("devices", len(nodes))
    try:
        os.close(os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK))
        report("kmsg", "ok")
    except OSError as error:
        report("kmsg", errno.errorcode[error.errno])
    try:
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.connect(("192.0.2.1", 9))
        report("inet-route", "ok")
    except OSError as error:
        report("inet-route", errno.errorcode[error.errno])
    report("interfaces", ",".join(sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:])))
    try:
        mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC).close()
        report("mmap-wx", "ok")
    except OSError as error:
        report("mmap-wx", errno.errorcode[error.errno])
    report("unshare", call(libc.unshare(0x04000000)))
    report("settimeofday", call(libc.syscall(164, None, None)))  # settimeofday(NULL, NULL): glibc's wrapper needs a time
    name = os.uname().nodename.encode()
    report("sethostname", call(libc.sethostname(name, len(name))))
    current = libc.personality(0xffffffff)
    report("personality", call(0 if libc.personality(0x0008) >= 0 else -1))
    libc.personality(current)
    param = ctypes.c_int(1)
    report("realtime", call(libc.sched_setscheduler(0, 1, ctypes.byref(param))))
    param = ctypes.c_int(0)
    libc.sched_setscheduler(0, 0, ctypes.byref(param))
    status = dict(l.split(":\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\t" in l)
    report("nnp", status["NoNewPrivs"].strip())
    report("capbnd", status["CapBnd"].strip())
    report("capamb", status["CapAmb"].strip())
    report("uid", os.getuid())
    def attempt(key, action):
        try:
            action()
            report(key, "ok")
        except OSError as error:
            report(key, errno.errorcode[error.errno])
    try:
        scratch = tempfile.mkdtemp()
    except OSError:
        scratch = None
    if scratch:
        target = scratch + "/f"
        open(target, "w").close()
        attempt("chmod-suid", lambda: os.chmod(target, 0o4755))
        attempt("chmod-sgid", lambda: os.chmod(target, 0o2755))
        attempt("chmod-plain", lambda: os.chmod(target, 0o750))
        attempt("create-suid", lambda: os.close(os.open(scratch + "/g", os.O_CREAT | os.O_WRONLY, 0o4755)))
        attempt("mkdir-sgid", lambda: os.mkdir(scratch + "/d", 0o2755))
        shutil.rmtree(scratch)
    report("swapoff", call(libc.swapoff(b"/nonexistent")))
    """#

    final class Probe {
        let setup: PrivilegeBoundaryTests.Setup
        let script = "/run/jobd-sandbox-probe-\(getpid()).py"
        let marker = "jobd-sandbox-marker-\(getpid())"
        let scratch = "/var/lib/jobd-sandbox-probe-\(getpid())"

        init() throws {
            setup = try PrivilegeBoundaryTests.Setup(cgroup: try DelegatedTestCgroup())
            try SandboxTests.probe.write(toFile: script, atomically: true, encoding: .utf8)
            _ = FileManager.default.createFile(atPath: "/tmp/" + marker, contents: nil)
            for directory in ["writable", "readonly", "hidden"] {
                try FileManager.default.createDirectory(atPath: scratch + "/" + directory, withIntermediateDirectories: true)
            }
        }

        deinit {
            unlink(script)
            unlink("/tmp/" + marker)
            try? FileManager.default.removeItem(atPath: scratch)
        }

        func write(_ job: String, _ keys: String) throws {
            let paths = ["writable", "readonly", "hidden"].map { scratch + "/" + $0 }.joined(separator: " ")
            try setup.config.write(job: job, "[Job]\nExecStart=/usr/bin/python3 \(script) \(marker) \(paths)\n\(keys)\n")
        }

        /// The probe's report, and jobctl's exit status.
        func run(_ job: String) throws -> (status: Int32, report: [String: String]) {
            let (status, output) = try setup.jobctl(["run", job, "--wait"])
            if status != 0 { print("\(job): \(output)") }
            var report: [String: String] = [:]
            for line in output.split(separator: "\n") where !line.hasPrefix("jobctl:") {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard let equals = text.firstIndex(of: "=") else { continue }
                report[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            return (status, report)
        }
    }

    static func capabilities(_ mask: String) -> Set<Int> {
        let value = UInt64(mask, radix: 16) ?? 0
        return Set((0..<64).filter { value & (1 << UInt64($0)) != 0 })
    }

    static let manDB = DebianUnitKeys.manDBSandbox + "NoNewPrivileges=yes"

    static let logrotate = DebianUnitKeys.logrotateSandbox

    @Test func debiansTimerServicesKeysGiveTheRunSystemdsView() throws {
        try Requirement.root("to sandbox runs (namespaces, seccomp, a device policy)")
        let probe = try Probe()
        try probe.write("plain", "")
        try probe.write("man-db", Self.manDB)
        try probe.write("logrotate", Self.logrotate)
        #expect(try probe.setup.jobctl(["reload"]).0 == 0)

        // Without a key: the host's view, exactly as before.
        let (plainStatus, plain) = try probe.run("plain")
        #expect(plainStatus == 0)
        #expect(plain["usr"] == "rw" && plain["etc"] == "rw" && plain["tmp"] == "host" && plain["procsys"] == "rw", "\(plain)")
        #expect(plain["mmap-wx"] == "ok" && plain["unshare"] == "ok" && plain["personality"] == "ok" && plain["realtime"] == "ok", "\(plain)")
        #expect(plain["settimeofday"] == "ok" && plain["nnp"] == "0" && plain["kmsg"] == "ok" && plain["swapoff"] == "ENOENT", "\(plain)")
        #expect(Int(plain["devices"] ?? "") ?? 0 > 0, "\(plain)")

        for job in ["man-db", "logrotate"] {
            let (status, seen) = try probe.run(job)
            #expect(status == 0, "\(job): \(seen)")
            // ProtectSystem=full: /usr, /boot, /efi and /etc read-only; /var stays writable.
            #expect(seen["usr"] == "ro" && seen["etc"] == "ro" && seen["var"] == "rw", "\(job): \(seen)")
            // PrivateTmp=: a /tmp of its own, writable, without the host's files.
            #expect(seen["tmp"] == "private" && seen["tmp-writable"] == "rw", "\(job): \(seen)")
            // PrivateDevices=: only the pseudo devices; ProtectKernelLogs=: no /dev/kmsg.
            #expect(seen["devices"] == "0" && seen["kmsg"] == "ENOENT", "\(job): \(seen)")
            // ProtectKernelTunables=, ProtectControlGroups=: /proc/sys and /sys/fs/cgroup read-only.
            #expect(seen["procsys"] == "ro" && seen["cgroup"] == "ro", "\(job): \(seen)")
            // ProtectClock=, ProtectHostname=, LockPersonality=, RestrictRealtime=: EPERM.
            #expect(seen["settimeofday"] == "EPERM" && seen["sethostname"] == "EPERM", "\(job): \(seen)")
            #expect(seen["personality"] == "EPERM" && seen["realtime"] == "EPERM", "\(job): \(seen)")
            // PrivateDevices= (@raw-io), ProtectKernelModules=, ProtectKernelLogs=, ProtectClock=
            // drop CAP_SYS_RAWIO, CAP_MKNOD, CAP_SYS_MODULE, CAP_SYSLOG, CAP_SYS_TIME, CAP_WAKE_ALARM.
            let dropped: Set<Int> = [17, 27, 16, 34, 25, 35]
            #expect(Self.capabilities(seen["capbnd"] ?? "").isDisjoint(with: dropped), "\(job): \(seen)")
            #expect(Self.capabilities(seen["capbnd"] ?? "").contains(21), "CAP_SYS_ADMIN is kept: \(seen)")
        }
        let (_, manDB) = try probe.run("man-db")
        // ProtectHome=true: /root is an empty directory of mode 000; NoNewPrivileges=yes.
        #expect(manDB["root-mode"] == "0o0" && manDB["nnp"] == "1", "\(manDB)")
        #expect(manDB["mmap-wx"] == "ok" && manDB["unshare"] == "ok", "\(manDB)")
        let (_, logrotate) = try probe.run("logrotate")
        // MemoryDenyWriteExecute=, RestrictNamespaces=: EPERM; no NoNewPrivileges= for a root run.
        #expect(logrotate["mmap-wx"] == "EPERM" && logrotate["unshare"] == "EPERM" && logrotate["nnp"] == "0", "\(logrotate)")
        #expect(logrotate["root-mode"] != "0o0", "\(logrotate)")

        // The private /tmp and /var/tmp directories are gone with their runs.
        let left = try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { $0.hasPrefix("jobd-private-man-db-") || $0.hasPrefix("jobd-private-logrotate-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func strictPathsNetworkAndSystemCallFilters() throws {
        try Requirement.root("to sandbox runs (namespaces, seccomp, a device policy)")
        let probe = try Probe()
        try probe.write("strict", """
            ProtectSystem=strict
            ReadWritePaths=\(probe.scratch)/writable
            ReadOnlyPaths=\(probe.scratch)/readonly
            InaccessiblePaths=\(probe.scratch)/hidden -/nonexistent
            PrivateNetwork=yes
            SystemCallFilter=~@swap
            SystemCallErrorNumber=ENOSYS
            """)
        try probe.write("allow-list", "SystemCallFilter=@system-service")
        try probe.write("clock", "ProtectClock=yes")
        try probe.write("capabilities", "CapabilityBoundingSet=CAP_CHOWN CAP_DAC_OVERRIDE")
        try probe.write("nobody", "User=nobody\nLockPersonality=yes\nAmbientCapabilities=CAP_NET_BIND_SERVICE\nPrivateTmp=yes")
        try probe.write("home-tmpfs", "ProtectHome=tmpfs")
        let reload = try probe.setup.jobctl(["reload"])
        #expect(reload.0 == 0, "\(reload.1)")

        let (status, strict) = try probe.run("strict")
        #expect(status == 0, "\(strict)")
        // ProtectSystem=strict: all read-only but /dev, /proc, /sys, and what ReadWritePaths= names.
        #expect(strict["usr"] == "ro" && strict["var"] == "ro" && strict["tmp-writable"] == "ro" && strict["tmp"] == "host", "\(strict)")
        #expect(strict["writable"] == "rw" && strict["readonly"] == "ro" && strict["hidden"] == "ro", "\(strict)")
        #expect(strict["procsys"] == "rw", "ProtectSystem= leaves /proc alone: \(strict)")
        // PrivateNetwork=: the loopback device only.
        #expect(strict["interfaces"] == "lo" && strict["inet-route"] == "ENETUNREACH", "\(strict)")
        // A denied call fails with SystemCallErrorNumber=; the others are untouched.
        #expect(strict["swapoff"] == "ENOSYS" && strict["unshare"] == "ok" && strict["nnp"] == "0", "\(strict)")

        // An allow list without SystemCallErrorNumber= kills the process (SIGSYS) at the first
        // call it does not list: settimeofday, which is in @clock, not @system-service.
        let (killed, allowList) = try probe.run("allow-list")
        #expect(killed != 0 && allowList["unshare"] == "ok" && allowList["settimeofday"] == nil, "\(killed) \(allowList)")
        let exit = probe.setup.daemon.events("run.exit").last { $0.field("JOB") == "allow-list" }
        #expect(exit?.field("JOBD_RESULT") == "signal" && exit?.field("EXIT_STATUS") == "SYS", "\(String(describing: exit))")

        // ProtectClock= alone: the clock cannot be set, and the device policy lets only the pseudo
        // devices (and the RTC, read-only) be opened.
        let (_, clock) = try probe.run("clock")
        #expect(clock["settimeofday"] == "EPERM" && clock["kmsg"] == "EPERM" && clock["usr"] == "rw", "\(clock)")
        #expect(Int(clock["devices"] ?? "") ?? 0 > 0, "\(clock)")

        let (_, capabilities) = try probe.run("capabilities")
        #expect(Self.capabilities(capabilities["capbnd"] ?? "") == [0, 1], "\(capabilities)")

        // A seccomp filter for a run without CAP_SYS_ADMIN (User=) implies NoNewPrivileges=, as systemd's.
        let (_, nobody) = try probe.run("nobody")
        #expect(nobody["nnp"] == "1" && nobody["personality"] == "EPERM", "\(nobody)")
        // AmbientCapabilities=: kept across the switch to the user, and handed to the command.
        #expect(nobody["uid"] == "65534" && Self.capabilities(nobody["capamb"] ?? "") == [10], "\(nobody)")
        // PrivateTmp= of a User= run: its own /tmp, which the user can write (mode 1777).
        #expect(nobody["tmp"] == "private" && nobody["tmp-writable"] == "rw", "\(nobody)")

        // ProtectHome=tmpfs: an empty read-only tmpfs (mode 0755) on /root.
        let (_, home) = try probe.run("home-tmpfs")
        #expect(home["root-mode"] == "0o755" && home["root-writable"] == "ro" && home["usr"] == "rw", "\(home)")
    }

    /// RestrictSUIDSGID=, as systemd's filter: no set-user-ID or set-group-ID bit can be given to a
    /// file, by chmod, by creating it or by mkdir, while other modes still can; nothing else of the
    /// run changes.
    @Test func restrictSUIDSGIDRefusesTheSetIDBitsAndNothingElse() throws {
        try Requirement.root("to sandbox runs (seccomp)")
        let probe = try Probe()
        try probe.write("plain", "")
        try probe.write("no-set-id", "RestrictSUIDSGID=yes")
        let reload = try probe.setup.jobctl(["reload"])
        #expect(reload.0 == 0, "\(reload.1)")
        let (plainStatus, plain) = try probe.run("plain")
        let (status, restricted) = try probe.run("no-set-id")
        #expect(plainStatus == 0 && status == 0, "\(plain) \(restricted)")
        for key in ["chmod-suid", "chmod-sgid", "create-suid", "mkdir-sgid"] {
            #expect(plain[key] == "ok", "\(key) without the key: \(plain)")
            #expect(restricted[key] == "EPERM", "\(key) with RestrictSUIDSGID=yes: \(restricted)")
        }
        #expect(restricted["chmod-plain"] == "ok" && restricted["personality"] == "ok" && restricted["mmap-wx"] == "ok", "\(restricted)")
        // A root run keeps CAP_SYS_ADMIN, so, as systemd, no NoNewPrivileges= is implied.
        #expect(restricted["nnp"] == "0" && restricted["uid"] == "0", "\(restricted)")
    }

    /// What a run leaves in its private /tmp goes with it, however deep, and a link it left there to
    /// a file of the host is removed, never followed.
    @Test func aPrivateTmpIsRemovedWithoutFollowingWhatTheRunLeft() throws {
        try Requirement.root("to sandbox runs")
        let setup = try PrivilegeBoundaryTests.Setup()
        let victim = "/var/lib/jobd-sandbox-victim-\(getpid())"
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: victim) }
        _ = FileManager.default.createFile(atPath: victim + "/keep", contents: Data("kept".utf8))
        let script = "cd /tmp && ln -s \(victim) victim && ln -s \(victim)/keep keep && cd /var/tmp && ln -s \(victim) victim"
            + " && i=0 && while [ $$i -lt 1500 ]; do mkdir d && cd d && i=$$((i+1)); done && touch deepest"
        try setup.config.write(job: "litter", "[Job]\nExecStart=/bin/sh -c '\(script)'\nPrivateTmp=yes\nUser=nobody\n")
        _ = try setup.jobctl(["reload"])
        let run = try setup.jobctl(["run", "litter", "--wait"])
        #expect(run.0 == 0, "\(run.1)")
        let left = try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { $0.hasPrefix("jobd-private-litter-") }
            + FileManager.default.contentsOfDirectory(atPath: "/var/tmp").filter { $0.hasPrefix("jobd-private-litter-") }
        #expect(left.isEmpty, "\(left)")
        #expect(try String(contentsOfFile: victim + "/keep", encoding: .utf8) == "kept")
    }

    /// A path that must exist and does not fails the start, with the reason, as systemd's 226
    /// (EXIT_NAMESPACE) would; jobd reports it as its one "could not start" status, 203.
    @Test func aMissingPathFailsTheStartWithTheReason() throws {
        try Requirement.root("to sandbox runs")
        let setup = try PrivilegeBoundaryTests.Setup()
        let missing = "/var/lib/jobd-sandbox-missing-\(getpid())"
        try setup.config.write(job: "missing", "[Job]\nExecStart=/bin/true\nInaccessiblePaths=/home\nReadOnlyPaths=\(missing)\n")
        try setup.config.write(job: "optional", "[Job]\nExecStart=/bin/true\nInaccessiblePaths=/home\nReadOnlyPaths=-\(missing)\n")
        _ = try setup.jobctl(["reload"])
        let failed = try setup.jobctl(["run", "missing", "--wait"])
        #expect(failed.0 == 203 && failed.1.contains("\(missing): No such file or directory"), "\(failed.1)")
        #expect(try setup.jobctl(["run", "optional", "--wait"]).0 == 0)
        let staging = try FileManager.default.contentsOfDirectory(atPath: "/run").filter { $0.hasPrefix("jobd-cgexec-") }
        #expect(staging.isEmpty, "\(staging)")
    }

    /// A read-only /run above the inaccessible nodes' staging (ProtectSystem=strict with
    /// ReadOnlyPaths=/run, a key set of the differential test against systemd 252): the run starts,
    /// sees the hidden path empty, leaves no staging directory in /run (the bind of /run onto itself
    /// once covered the staging mount, and the start failed), and starts with no signal ignored
    /// (glibc's posix_spawn leaves its own 32 and 33 ignored; jobd-cgexec resets them, as systemd).
    @Test func aReadOnlyRunAboveHiddenPathsStartsAndLeavesNothingInRun() throws {
        try Requirement.root("to sandbox runs")
        let setup = try PrivilegeBoundaryTests.Setup()
        let hidden = "/var/lib/jobd-sandbox-hidden-\(getpid())"
        try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: hidden) }
        _ = FileManager.default.createFile(atPath: hidden + "/secret", contents: Data("secret".utf8))
        let command = "/bin/sh -c 'echo entries=$$(ls -A \(hidden) | wc -l); grep ^SigIgn: /proc/self/status'"
        try setup.config.write(job: "strict", "[Job]\nExecStart=\(command)\nProtectSystem=strict\nReadOnlyPaths=/run\nInaccessiblePaths=\(hidden)\n")
        _ = try setup.jobctl(["reload"])
        let run = try setup.jobctl(["run", "strict", "--wait"])
        let lines = run.1.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(run.0 == 0 && lines.contains("entries=0"), "\(run.1)")
        #expect(lines.contains { $0.hasPrefix("SigIgn:") && $0.hasSuffix("0000000000000000") }, "\(run.1)")
        let staging = try FileManager.default.contentsOfDirectory(atPath: "/run").filter { $0.hasPrefix("jobd-cgexec-") }
        #expect(staging.isEmpty, "\(staging)")
    }

    /// PrivateDevices= and ProtectClock= need the run's cgroup for their device policy: without
    /// one, the job is broken at load, at the key's line, and other jobs run.
    @Test func aDevicePolicyWithoutACgroupIsABadSetting() throws {
        try Requirement.root("to sandbox runs")
        let setup = try PrivilegeBoundaryTests.Setup()
        try setup.config.write(job: "devices", "[Job]\nExecStart=/bin/true\nPrivateTmp=yes\nPrivateDevices=yes\n")
        try setup.config.write(job: "tmp-only", "[Job]\nExecStart=/bin/sh -c 'ls /tmp | wc -l'\nPrivateTmp=yes\n")
        _ = try setup.jobctl(["reload"])
        let status = try setup.jobctl(["status", "devices"])
        #expect(status.1.contains("devices.job:4: error: PrivateDevices= cannot be applied"), "\(status.1)")
        let run = try setup.jobctl(["run", "tmp-only", "--wait"])
        #expect(run.0 == 0 && run.1.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "0" }, "\(run.1)")
    }
}

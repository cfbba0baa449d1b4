import Foundation
import JobdConfig
import JobdTestKit
import Testing

/// Issue 26: nothing a `User=` job or its files control reaches a process that runs as root. A
/// library the job's `LD_PRELOAD` names records the uid of every process that loads it; only the
/// job's own command, as the job's user, may have loaded it, whether jobd tracks runs by process
/// group or by cgroup, and whether the variable comes from `Environment=`, a user-owned
/// `EnvironmentFile=` or an imported user crontab.
@Suite(.serialized) struct PrivilegeBoundaryTests {
    /// nobody and nogroup on Debian: a real unprivileged account.
    static let nobody: UInt32 = 65_534

    /// A directory every user can read, and in it `name` built by cc from `source` (made knowing the
    /// directory), which every user can run or load.
    final class CompiledProbe {
        let directory: String
        let output: String

        init(_ name: String, flags: [String] = [], source: (_ directory: String) -> String) throws {
            directory = NSTemporaryDirectory() + "jobd-\(name)-" + UUID().uuidString
            output = directory + "/" + name
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, 0o755)
            try source(directory).write(toFile: output + ".c", atomically: true, encoding: .utf8)
            let compiled = try CapturedProcess.run("/usr/bin/cc", flags + ["-o", output, output + ".c"])
            try #require(compiled.status == 0, "cc: \(compiled.standardError)")
            chmod(output, 0o755)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// A directory every user can read, with `probe.so`, whose constructor appends "UID EUID
    /// PROGRAM" of the process that loads it to `loads`, which every user can append to.
    final class PreloadProbe {
        let build: CompiledProbe
        var directory: String { build.directory }
        var library: String { build.output }
        var loadsFile: String { directory + "/loads" }

        init() throws {
            build = try CompiledProbe("probe.so", flags: ["-shared", "-fPIC"]) { directory in
                """
                #include <fcntl.h>
                #include <stdio.h>
                #include <unistd.h>
                __attribute__((constructor)) static void record(void) {
                    char program[512] = "?";
                    ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
                    if (length > 0) program[length] = 0;
                    int fd = open("\(directory)/loads", O_WRONLY | O_APPEND | O_CLOEXEC);
                    if (fd >= 0) { dprintf(fd, "%u %u %s\\n", getuid(), geteuid(), program); close(fd); }
                }
                """
            }
            #expect(FileManager.default.createFile(atPath: loadsFile, contents: nil))
            chmod(loadsFile, 0o666)
        }

        /// Every load so far: the process's real and effective uid, and its program.
        var loads: [(uid: UInt32, euid: UInt32, program: String)] {
            let text = (try? String(contentsOfFile: loadsFile, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                let words = line.split(separator: " ", maxSplits: 2)
                guard words.count == 3, let uid = UInt32(words[0]), let euid = UInt32(words[1]) else { return nil }
                return (uid, euid, String(words[2]))
            }
        }

        /// Writes `text` into the probe's directory as `name`, owned by `owner` with `mode`.
        func write(_ name: String, _ text: String, owner: UInt32, mode: mode_t) throws -> String {
            let path = directory + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            chown(path, owner, owner)
            chmod(path, mode)
            return path
        }
    }

    /// jobd (inside `cgroup` when one is given) on a configuration of its own.
    final class Setup {
        let config: TemporaryConfiguration
        let runtime: String
        let daemon: DaemonProcess
        let cgroup: DelegatedTestCgroup?

        init(cgroup: DelegatedTestCgroup? = nil, conf: String? = nil) throws {
            config = try TemporaryConfiguration()
            try conf?.write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
            runtime = config.path + "/run"
            self.cgroup = cgroup
            let arguments = ["--config-dir", config.path, "--runtime-dir", runtime]
            let jobd = DaemonProcess.productsDirectory + "/jobd"
            let (executable, words) = cgroup?.launch(jobd, arguments) ?? (jobd, arguments)
            daemon = try DaemonProcess(absolutePath: executable, arguments: words)
            try daemon.waitForEvent("daemon.ready")
        }

        func jobctl(_ arguments: [String]) throws -> (Int32, String) {
            try Jobctl(runtime: runtime, daemon: daemon, environment: nil)(arguments)
        }

        deinit {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
    }

    static func requireRoot() throws {
        try Requirement.root("to switch a job to User=nobody")
    }

    /// A `User=nobody` job with `key` that runs `script` with /bin/sh when asked to.
    static func nobodyJob(_ key: String, _ script: String) -> String {
        "[Job]\nOnStartupSec=1h\nUser=nobody\n\(key)\nExecStart=/bin/sh -c '\(script)'\n"
    }

    /// Runs `LD_PRELOAD` from `Environment=` and from a 0600 `EnvironmentFile=` that nobody owns in
    /// two `User=nobody` jobs, and checks who loaded the probe.
    func preloadReachesOnlyTheJob(_ setup: Setup) throws {
        let probe = try PreloadProbe()
        let file = try probe.write("user.env", "LD_PRELOAD=\(probe.library)\n", owner: Self.nobody, mode: 0o600)
        try setup.config.write(job: "from-environment", Self.nobodyJob("Environment=LD_PRELOAD=\(probe.library)", "echo ran as $$(id -u)"))
        try setup.config.write(job: "from-file", Self.nobodyJob("EnvironmentFile=\(file)", "echo ran as $$(id -u) with $$LD_PRELOAD"))
        #expect(try setup.jobctl(["reload"]).0 == 0)
        #expect(try setup.jobctl(["run", "from-environment", "--wait"]).0 == 0)
        #expect(try setup.jobctl(["run", "from-file", "--wait"]).0 == 0)
        #expect(setup.daemon.events("run.output").map(\.message) == ["ran as 65534", "ran as 65534 with \(probe.library)"])
        let loads = probe.loads
        #expect(!loads.isEmpty, "the job's own processes load the probe")
        #expect(loads.allSatisfy { $0.uid == Self.nobody && $0.euid == Self.nobody }, "no process of another uid loaded it: \(loads)")
        #expect(loads.contains { $0.program.hasSuffix("sh") || $0.program.hasSuffix("dash") }, "\(loads)")
    }

    @Test func aUserJobsPreloadNeverRunsAsRootWithProcessGroups() throws {
        try Self.requireRoot()
        let setup = try Setup()
        #expect(setup.daemon.lines.contains { $0.contains("runs are tracked by process group") })
        try preloadReachesOnlyTheJob(setup)
    }

    @Test func aUserJobsPreloadNeverRunsAsRootWithADelegatedCgroup() throws {
        try Self.requireRoot()
        let cgroup = try DelegatedTestCgroup()
        let setup = try Setup(cgroup: cgroup)
        #expect(setup.daemon.lines.contains { $0.contains("runs are tracked by cgroup") }, "\(setup.daemon.lines.prefix(5))")
        try preloadReachesOnlyTheJob(setup)
        #expect(setup.daemon.events("run.exit").allSatisfy { $0.field("JOBD_CGROUP")?.contains("/run-") == true })
    }

    @Test func anEnvironmentFileTheUserCannotReadFailsTheStart() throws {
        try Self.requireRoot()
        let probe = try PreloadProbe()
        let secret = try probe.write("root.env", "TOKEN=hunter2\n", owner: 0, mode: 0o600)
        let setup = try Setup()
        try setup.config.write(job: "curious", Self.nobodyJob("EnvironmentFile=\(secret)", "echo TOKEN=$$TOKEN"))
        #expect(try setup.jobctl(["reload"]).0 == 0)
        #expect(try setup.jobctl(["run", "curious", "--wait"]).0 == 203)
        let start = try #require(setup.daemon.events("run.start").last)
        #expect(start.message.contains(secret) && start.message.contains("Permission denied"), "\(start.message)")
        #expect(setup.daemon.events("run.exit").last?.field("EXIT_CODE") == "failed-to-start")
        #expect(setup.daemon.events("run.output").isEmpty, "the command never ran")
        #expect(!setup.daemon.lines.contains { $0.contains("hunter2") })
    }

    @Test func aUserJobsWorkingDirectoryIsEnteredAsTheUser() throws {
        try Self.requireRoot()
        let probe = try PreloadProbe()
        let closed = probe.directory + "/closed"
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: false)
        chmod(closed, 0o700)
        let setup = try Setup()
        try setup.config.write(job: "inside", Self.nobodyJob("WorkingDirectory=\(closed)", "pwd"))
        try setup.config.write(job: "optional", Self.nobodyJob("WorkingDirectory=-\(probe.directory)/missing", "pwd"))
        #expect(try setup.jobctl(["reload"]).0 == 0)
        #expect(try setup.jobctl(["run", "inside", "--wait"]).0 == 203)
        // jobctl's answer may come before jobd's log line reaches this process: wait for it.
        try setup.daemon.waitForEvent("run.start", fields: ["JOB": "inside"])
        let start = try #require(setup.daemon.events("run.start").last)
        #expect(start.message.contains("cannot change to the working directory \(closed): Permission denied"), "\(start.message)")
        #expect(try setup.jobctl(["run", "optional", "--wait"]).0 == 0)
        try setup.daemon.waitForEvent("run.exit", fields: ["JOB": "optional"])
        #expect(setup.daemon.events("run.output").map(\.message) == ["/"])
    }

    @Test func aMissingCommandOfAUserJobIsAFailedStartWithItsReason() throws {
        try Self.requireRoot()
        let setup = try Setup()
        try setup.config.write(job: "ghost", "[Job]\nOnStartupSec=1h\nUser=nobody\nExecStart=jobd-no-such-command\n")
        #expect(try setup.jobctl(["reload"]).0 == 0)
        #expect(try setup.jobctl(["run", "ghost", "--wait"]).0 == 203)
        try setup.daemon.waitForEvent("run.exit", fields: ["JOB": "ghost"])
        let start = try #require(setup.daemon.events("run.start").last)
        // Started without jobd-cgexec, a User= run's command is looked up by jobd, as a root run's.
        #expect(start.message.contains("cannot start jobd-no-such-command: no such executable in PATH"), "\(start.message)")
        #expect(setup.daemon.events("run.exit").last?.field("EXIT_CODE") == "failed-to-start")
    }

    /// A program every user can run: `keyring-probe` prints its session keyring's serial and
    /// whether a key of an earlier run is in it (then adds one); `keyring-probe exec PROGRAM…`
    /// joins a new session keyring and executes PROGRAM in it, as systemd starts jobd.service
    /// (KeyringMode=private).
    enum KeyringProbe {
        static func build() throws -> CompiledProbe {
            try CompiledProbe("keyring-probe") { _ in
                """
                #include <errno.h>
                #include <stdio.h>
                #include <string.h>
                #include <unistd.h>
                #include <sys/syscall.h>
                #include <linux/keyctl.h>
                int main(int argc, char **argv) {
                    if (argc > 2 && strcmp(argv[1], "exec") == 0) {
                        long joined = syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
                        if (joined < 0) { perror("keyctl"); return 1; }
                        fprintf(stderr, "joined keyring=%ld\\n", joined);
                        execv(argv[2], argv + 2);
                        perror("execv");
                        return 1;
                    }
                    long serial = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
                    long found = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", "jobd-test-secret", 0);
                    printf("uid=%u keyring=%ld earlier-key=%s\\n", getuid(), serial, found >= 0 ? "found" : strerror(errno));
                    return syscall(SYS_add_key, "user", "jobd-test-secret", "hunter2", 7, KEY_SPEC_SESSION_KEYRING) < 0;
                }
                """
            }
        }
    }

    /// jobd runs in a session keyring of its own, as under its unit. Every run jobd-cgexec starts
    /// (every `User=` run, and under a delegated cgroup every run) joins a keyring of its own, as
    /// systemd's KeyringMode=private: a `User=nobody` run would otherwise possess jobd's keyring and
    /// read the key a root job left there, and one nobody run the key of the one before. A plain
    /// root job that jobd starts without jobd-cgexec (runs tracked by process group) keeps jobd's,
    /// as jobd.job(5) says.
    func keyringsAreTheRunsOwn(cgroup: DelegatedTestCgroup?) throws {
        let probe = try KeyringProbe.build()
        let config = try TemporaryConfiguration(jobs: [
            "root-writer": "[Job]\nOnStartupSec=1h\nExecStart=\(probe.output)\n",
            "nobody-reader": "[Job]\nOnStartupSec=1h\nUser=nobody\nExecStart=\(probe.output)\n",
        ])
        let runtime = config.path + "/run"
        let (jobd, arguments) = (DaemonProcess.productsDirectory + "/jobd", ["--config-dir", config.path, "--runtime-dir", runtime])
        let (executable, words) = cgroup?.launch(jobd, arguments) ?? (jobd, arguments)
        let daemon = try DaemonProcess(absolutePath: probe.output, arguments: ["exec", executable] + words)
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
        try daemon.waitForEvent("daemon.ready")
        let jobdKeyring = try #require(daemon.lines.first { $0.hasPrefix("joined keyring=") }?.dropFirst("joined keyring=".count))
        let jobctl = Jobctl(runtime: runtime, daemon: daemon, environment: nil)
        for job in ["root-writer", "nobody-reader", "nobody-reader"] {
            #expect(try jobctl(["run", job, "--wait"]).0 == 0)
        }
        let runs = daemon.events("run.output").map { $0.message.split(separator: " ").map(String.init) }
        try #require(runs.count == 3 && runs.allSatisfy { $0.count >= 3 }, "\(runs)")
        #expect(runs.map { $0[0] } == ["uid=0", "uid=65534", "uid=65534"], "\(runs)")
        #expect(runs.dropFirst().allSatisfy { $0.dropFirst(2).joined(separator: " ") == "earlier-key=Required key not available" },
                "no nobody run sees a key of an earlier run: \(runs)")
        let keyrings = runs.map { $0[1] }
        #expect(Set(keyrings).count == 3 && !keyrings.dropFirst().contains("keyring=\(jobdKeyring)"), "\(keyrings), jobd's \(jobdKeyring)")
        #expect((keyrings[0] == "keyring=\(jobdKeyring)") == (cgroup == nil), "\(keyrings[0]), jobd's \(jobdKeyring)")
    }

    @Test func everyUserRunHasASessionKeyringOfItsOwnWithProcessGroups() throws {
        try Self.requireRoot()
        try Requirement.tools("/usr/bin/cc", for: "the keyring probe")
        try keyringsAreTheRunsOwn(cgroup: nil)
    }

    @Test func everyRunHasASessionKeyringOfItsOwnWithADelegatedCgroup() throws {
        try Self.requireRoot()
        try Requirement.tools("/usr/bin/cc", for: "the keyring probe")
        try keyringsAreTheRunsOwn(cgroup: try DelegatedTestCgroup())
    }

    @Test func aPreloadInAnImportedUserCrontabRunsOnlyAsTheUser() throws {
        try Self.requireRoot()
        let probe = try PreloadProbe()
        let crontab = try probe.write("crontab", """
            LD_PRELOAD=\(probe.library)
            HOME=\(probe.directory)
            0 0 1 1 * echo from cron as $(id -u)

            """, owner: Self.nobody, mode: 0o600)
        let setup = try Setup()
        let importer = try DaemonProcess(
            product: "jobctl", arguments: ["import", "cron", crontab, "--user", "nobody", "--output", setup.config.path + "/jobs.d"])
        #expect(try importer.waitForExit() == 0, "\(importer.lines)")
        #expect(try setup.jobctl(["reload"]).0 == 0)
        #expect(try setup.jobctl(["run", "echo", "--wait"]).0 == 0)
        #expect(setup.daemon.events("run.output").map(\.message) == ["from cron as 65534"])
        let loads = probe.loads
        #expect(!loads.isEmpty && loads.allSatisfy { $0.uid == Self.nobody && $0.euid == Self.nobody }, "\(loads)")
    }
}

/// jobd-cgexec on its own, as jobd starts it but without the socket: each failure before the
/// command is systemd's exit status for it, with the reason on stderr, and the command gets the
/// plan's environment alone.
@Suite struct TrampolineExitTests {
    static let path = ["PATH": "/nonexistent:/usr/bin:/bin"]

    static func plan(_ argv: [String], _ change: (inout ExecPlan) -> Void = { _ in }) -> ExecPlan {
        var plan = ExecPlan()
        plan.argv = argv
        plan.environment = path
        change(&plan)
        return plan
    }

    @Test(arguments: [
        (plan(["/bin/true"]) { $0.directory = WorkingDirectory(path: "/nonexistent", optional: false) }, 200,
         "jobd-cgexec: cannot change to the working directory /nonexistent: No such file or directory"),
        (plan(["jobd-no-such-command"]), 203, "jobd-cgexec: jobd-no-such-command: executable not found in PATH"),
        (plan(["/nonexistent/command"]), 203, "jobd-cgexec: /nonexistent/command: No such file or directory"),
        (plan(["/bin/true"]) { $0.credentials.gid = 4_294_967_295 }, 216, "jobd-cgexec: not a gid: 4294967295"),
        (plan(["/bin/true"]) { $0.credentials.uid = 4_294_967_295 }, 217, "jobd-cgexec: not a uid: 4294967295"),
        (plan(["/bin/true"]) { $0.cgroups = ["/nonexistent/cgroup"] }, 219,
         "jobd-cgexec: cannot enter the run's cgroup /nonexistent/cgroup: No such file or directory"),
    ])
    func aFailureBeforeTheCommandIsSystemdsStatus(plan: ExecPlan, status: Int32, reason: String) throws {
        let result = try Self.trampoline(plan.encoded())
        #expect(result.status == status)
        #expect(result.standardError == reason + "\n")
        #expect(result.standardOutput.isEmpty)
    }

    /// A plan cut short (jobd stopped writing) is never run with part of it.
    @Test func aPlanCutShortIsRefused() throws {
        let whole = Self.plan(["/bin/true"]).encoded()
        let result = try Self.trampoline(Array(whole.dropLast()))
        #expect(result.status == 203 && result.standardError == "jobd-cgexec: the exec plan was cut short\n")
    }

    @Test func theCommandGetsThePlansEnvironmentAloneAndItsPath() throws {
        // `env` is found in the plan's PATH, not the trampoline's (it has none), and sees nothing of
        // the environment the trampoline itself was started with.
        let plan = Self.plan(["env"]) {
            $0.directory = WorkingDirectory(path: "/nonexistent", optional: true)
            $0.environment["JOB"] = "x"
        }
        let result = try Self.trampoline(plan.encoded())
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "JOB=x\nPATH=/nonexistent:/usr/bin:/bin\n")
    }

    /// Runs jobd-cgexec with `plan` on its stdin (after `prefix`, a command that execs the rest), and
    /// a variable of its own (`TRAMPOLINE_ONLY`) in its own environment.
    static func trampoline(_ plan: [UInt8], prefix: [String] = []) throws -> CapturedProcess {
        let trampoline = DaemonProcess.productsDirectory + "/jobd-cgexec"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jobd-plan-\(UUID().uuidString)")
        try Data(plan).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try CapturedProcess.run(
            "/bin/sh", ["-c", "\"$@\" < \"$0\"", file.path] + prefix + [trampoline],
            environment: ["PATH": "/usr/bin:/bin", "TRAMPOLINE_ONLY": "1"])
    }
}

import Glibc
import JobdConfig
import JobdLocks
import JobdProcess
import JobdRunner
import JobdTestKit
import Testing

/// Issue 39: runs are spawned with posix_spawn directly. What a job sees of it: its own session,
/// stdin from what it was given, its working directory and environment, and no descriptor of jobd's.
@Suite struct ProcessSpawnerTests {
    static func lines(of executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String = "/",
                      input: Int32 = open("/dev/null", O_RDONLY | O_CLOEXEC), setup: ProcessSpawner.Setup = ProcessSpawner.Setup()
    ) async throws -> (lines: [String], exit: RunReactor.Exit) {
        let reactor = RunReactor()
        try reactor.prepare().get()
        let spawned = try ProcessSpawner.spawn(executable, arguments: arguments, environment: environment, workingDirectory: directory, input: input,
                                               setup: setup).get()
        return await follow(spawned, on: reactor)
    }

    static func follow(_ spawned: ProcessSpawner.Spawned, on reactor: RunReactor) async -> (lines: [String], exit: RunReactor.Exit) {
        let lines = LockedBox<[String]>([])
        let exit = await reactor.follow(spawned, runID: 0) { line, _ in lines.withLock { $0.append(line) } }
        return (lines.withLock { $0 }, exit)
    }

    @Test func aRunIsALeaderOfASessionOfItsOwnInItsDirectoryWithItsEnvironment() async throws {
        let run = try await Self.lines(of: "sh", ["-c", "echo $$ $(cut -d' ' -f6 /proc/$$/stat); tr '\\0' '\\n' < /proc/$$/cmdline | head -n 1; pwd; echo $GREETING; env | cut -d= -f1 | sort | grep -vx -e PWD -e SHLVL -e _ | paste -sd' '"],
                                       environment: ["PATH": "/usr/bin:/bin", "GREETING": "hello"], directory: "/tmp")
        #expect(run.exit == .exited(0))
        let ids = run.lines.first?.split(separator: " ") ?? []
        #expect(ids.count == 2 && ids[0] == ids[1], "its session id is its pid: \(run.lines)")
        #expect(Array(run.lines.dropFirst()) == ["/usr/bin/sh", "/tmp", "hello", "GREETING PATH"],
                "argv[0] the path found in its PATH; nothing of jobd's environment")
    }

    /// Every descriptor of jobd's stays with jobd, also one opened without close-on-exec.
    @Test func aRunInheritsOnlyItsThreeDescriptors() async throws {
        let stray = open("/dev/null", O_RDONLY)
        defer { close(stray) }
        let run = try await Self.lines(of: "/bin/sh", ["-c", "ls /proc/$$/fd"])
        #expect(run.lines == ["0", "1", "2"])
    }

    @Test func stdinIsWhatTheRunWasGiven() async throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        _ = "from jobd\n".withCString { send(pair[0], $0, 10, 0) }
        shutdown(pair[0], Int32(SHUT_WR))
        let run = try await Self.lines(of: "/bin/cat", [], input: pair[1])
        close(pair[0])
        #expect(run.lines == ["from jobd"])
        #expect(run.exit == .exited(0))
    }

    /// Issue 39: what a stop asks before it signals: a running child has not ended; one that
    /// exited has, before the reactor reaps it (its end unheard) and after.
    @Test func aChildHasEndedOnceItExitsReapedOrNot() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let spawned = try ProcessSpawner.spawn("/bin/cat", arguments: [], environment: [:], workingDirectory: "/", input: pair[1]).get()
        defer { [spawned.pidfd, spawned.standardOutput, spawned.standardError, pair[0]].forEach { close($0) } }
        #expect(!ProcessSpawner.hasEnded(spawned.pid), "cat waits for its input")
        shutdown(pair[0], Int32(SHUT_WR))
        var info = siginfo_t()
        #expect(waitid(P_PID, id_t(spawned.pid), &info, WEXITED | WNOWAIT) == 0, "its exit, awaited and left unreaped")
        #expect(ProcessSpawner.hasEnded(spawned.pid))
        var status: Int32 = 0
        #expect(waitpid(spawned.pid, &status, 0) == spawned.pid)
        #expect(ProcessSpawner.hasEnded(spawned.pid), "reaped")
    }

    @Test func aCommandThatCannotBeStartedIsAFailureThatSaysWhy() {
        let missing = ProcessSpawner.spawn("/nonexistent/command", arguments: [], environment: [:], workingDirectory: "/",
                                           input: open("/dev/null", O_RDONLY | O_CLOEXEC))
        #expect(throws: ProcessSpawner.Failure.self) { try missing.get() }
        #expect((try? missing.get()) == nil)
        if case .failure(let failure) = missing { #expect(failure.description.contains("No such file or directory"), "\(failure)") }
        let unnamed = ProcessSpawner.spawn("no-such-command-here", arguments: [], environment: ["PATH": "/bin"], workingDirectory: "/",
                                           input: open("/dev/null", O_RDONLY | O_CLOEXEC))
        if case .failure(let failure) = unnamed { #expect(failure.description.contains("no such executable in PATH")) } else { Issue.record("started") }
    }

    @Test func aNameIsLookedUpInTheRunsPathInOrder() {
        #expect(ProcessSpawner.resolve("sh", path: "/nonexistent:relative:/bin:/usr/bin") == "/bin/sh")
        #expect(ProcessSpawner.resolve("./local", path: "/bin") == "./local")
        #expect(ProcessSpawner.resolve("sh", path: "/nonexistent") == nil)
    }

    /// jobd runs with a raised soft RLIMIT_NOFILE; a run gets the one it is given (the soft limit
    /// jobd started with), set in the child before its execve, its hard limit untouched.
    @Test func aRunHasTheDescriptorLimitItIsGiven() async throws {
        var own = rlimit()
        getrlimit(__rlimit_resource_t(UInt32(ResourceLimit.Resource.nofile.number)), &own)
        let soft = min(UInt64(own.rlim_cur), 512) - 1
        let hard = own.rlim_max == rlim_t.max ? "unlimited" : String(own.rlim_max)
        let limited = try await Self.lines(of: "/bin/sh", ["-c", "ulimit -Sn; ulimit -Hn"],
                                           setup: ProcessSpawner.Setup(descriptorLimit: ResourceLimit(soft: soft, hard: own.rlim_max == rlim_t.max ? nil : UInt64(own.rlim_max))))
        #expect(limited.lines == [String(soft), hard])
        let inherited = try await Self.lines(of: "/bin/sh", ["-c", "ulimit -Sn"])
        #expect(inherited.lines == [String(own.rlim_cur)], "without one, jobd's own")
    }

    /// Every signal at its default and none blocked, whatever the spawning thread blocked or the
    /// process ignored (SIGURG: ignored by default all the same, so no other test notices).
    @Test func aRunStartsWithEverySignalAtItsDefaultAndNoneBlocked() async throws {
        let reactor = RunReactor()
        try reactor.prepare().get()
        let previous = signal(SIGURG, SIG_IGN)
        defer { signal(SIGURG, previous) }
        var blocked = sigset_t()
        var before = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        // Blocked on this thread alone, and the spawn made on it without a suspension between.
        let spawned: ProcessSpawner.Spawned = try {
            pthread_sigmask(SIG_BLOCK, &blocked, &before)
            defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
            // grep reads its own status: a shell blocks every signal while it waits for a child.
            return try ProcessSpawner.spawn("/bin/grep", arguments: ["-E", "^Sig(Blk|Ign)", "/proc/self/status"], environment: [:],
                                            workingDirectory: "/", input: open("/dev/null", O_RDONLY | O_CLOEXEC)).get()
        }()
        let run = await Self.follow(spawned, on: reactor)
        #expect(run.lines == ["SigBlk:\t0000000000000000", "SigIgn:\t0000000000000000"])
    }

    @Test func aWorkingDirectoryThatCannotBeEnteredIsAFailure() {
        let started = ProcessSpawner.spawn("/bin/true", arguments: [], environment: [:], workingDirectory: "/nonexistent/directory",
                                           input: open("/dev/null", O_RDONLY | O_CLOEXEC))
        if case .failure(let failure) = started {
            #expect(failure.description == "cannot change to the working directory /nonexistent/directory: No such file or directory")
        } else {
            Issue.record("started")
        }
    }

    /// A `User=` run with no other key is switched in the spawned child, as jobd-cgexec switches:
    /// its groups, gid and uid (real, effective and saved), with no capability left, then its
    /// working directory entered as the user: a missing optional one leaves it in /, and one the
    /// user may not enter is a failure that says so, as jobd-cgexec's.
    @Test func aRunSwitchesToItsUserInTheChild() async throws {
        try Requirement.root("to switch a run to nobody")
        let nobody = ExecPlan.Credentials(groups: [4, 65_534], gid: 65_534, uid: 65_534)
        let status = "grep -E '^(Uid|Gid|Groups|CapEff|CapPrm):' /proc/$$/status | tr -s '\\t ' ' ' | sed 's/ $//'; pwd; ls /proc/$$/fd"
        let run = try await Self.lines(of: "/bin/sh", ["-c", status], environment: ["PATH": "/usr/bin:/bin"],
                                       setup: .init(keyring: true, credentials: nobody, userDirectory: WorkingDirectory(path: "/nonexistent", optional: true)))
        #expect(run.exit == .exited(0))
        #expect(run.lines == [
            "Uid: 65534 65534 65534 65534", "Gid: 65534 65534 65534 65534", "Groups: 4 65534", "CapPrm: 0000000000000000",
            "CapEff: 0000000000000000", "/", "0", "1", "2",
        ])
        let closed = ProcessSpawner.spawn("/bin/true", arguments: [], environment: [:], workingDirectory: "/", input: open("/dev/null", O_RDONLY | O_CLOEXEC),
                                          setup: .init(credentials: nobody, userDirectory: WorkingDirectory(path: "/root", optional: true)))
        if case .failure(let failure) = closed {
            #expect(failure.description == "cannot change to the working directory /root: Permission denied")
        } else {
            Issue.record("started in a directory nobody may not enter")
        }
    }

    /// A run that needs only its cgroup starts in it (`CLONE_INTO_CGROUP`) and enters its cgroup v1
    /// twins (a hybrid host's pids hierarchy), without jobd-cgexec. Needs root and a writable cgroup v2.
    @Test func aRunStartsInItsCgroupAndItsTwins() async throws {
        let delegated = try DelegatedTestCgroup()
        let name = "run-spawn-test"
        var legacy: [String: String] = [:]
        for (controller, directory) in delegated.legacy where mkdir(directory + "/" + name, 0o755) == 0 { legacy[controller] = directory + "/" + name }
        #expect(mkdir(delegated.directory + "/" + name, 0o755) == 0)
        let mount = String(delegated.directory[..<delegated.directory.lastIndex(of: "/")!])
        let path = String(delegated.directory.dropFirst(mount.count)) + "/" + name
        let cgroup = RunCgroup(directory: delegated.directory + "/" + name, path: path, legacy: legacy)
        let run = try await Self.lines(of: "/bin/cat", ["/proc/self/cgroup"], setup: ProcessSpawner.Setup(cgroup: cgroup))
        #expect(run.exit == .exited(0))
        #expect(run.lines.contains("0::" + path), "\(run.lines)")
        for controller in legacy.keys {
            #expect(run.lines.contains { $0.split(separator: ":").dropFirst().first?.split(separator: ",").contains(Substring(controller)) == true
                                          && $0.hasSuffix("/" + name) }, "its \(controller) twin: \(run.lines)")
        }
    }
}

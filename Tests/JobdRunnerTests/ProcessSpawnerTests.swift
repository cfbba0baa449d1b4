import Glibc
import JobdConfig
import JobdLocks
import JobdRunner
import Testing

/// Issue 39: runs are spawned with posix_spawn directly. What a job sees of it: its own session,
/// stdin from what it was given, its working directory and environment, and no descriptor of jobd's.
@Suite struct ProcessSpawnerTests {
    static func lines(of executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String = "/",
                      input: Int32 = open("/dev/null", O_RDONLY | O_CLOEXEC),
                      descriptorLimit: ResourceLimit? = nil) async throws -> (lines: [String], exit: RunReactor.Exit) {
        let reactor = RunReactor()
        try reactor.prepare().get()
        let spawned = try ProcessSpawner.spawn(executable, arguments: arguments, environment: environment, workingDirectory: directory, input: input,
                                               descriptorLimit: descriptorLimit).get()
        let lines = LockedBox<[String]>([])
        let exit = await reactor.follow(spawned) { line, _ in lines.withLock { $0.append(line) } }
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

    /// Issue 39: jobd raises its own RLIMIT_NOFILE; a run gets the limit jobd was started with, set
    /// in the child before the command runs (the command sees it from its first instruction).
    @Test func aRunGetsTheDescriptorLimitItIsGiven() async throws {
        let run = try await Self.lines(of: "/bin/sh", ["-c", "ulimit -Sn; ulimit -Hn"], descriptorLimit: ResourceLimit(soft: 256, hard: 512))
        #expect(run.lines == ["256", "512"])
        let unchanged = try await Self.lines(of: "/bin/sh", ["-c", "ulimit -Sn"])
        var own = rlimit()
        getrlimit(__rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue)), &own)
        #expect(unchanged.lines == [String(own.rlim_cur)], "without one, jobd's own")
    }

    /// What jobd ignores or blocks, a run does not: every signal at its default, none blocked.
    @Test func aRunStartsWithEverySignalAtItsDefault() async throws {
        let previous = signal(SIGUSR1, SIG_IGN)
        defer { signal(SIGUSR1, previous) }
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGUSR2)
        var old = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        let run = try await Self.lines(of: "/bin/grep", ["-E", "^Sig(Ign|Blk):", "/proc/self/status"])
        #expect(run.lines == ["SigBlk:\t0000000000000000", "SigIgn:\t0000000000000000"])
    }

    /// A working directory that cannot be entered fails the start, as posix_spawn's did.
    @Test func aMissingWorkingDirectoryFailsTheStart() {
        let started = ProcessSpawner.spawn("/bin/true", arguments: [], environment: [:], workingDirectory: "/nonexistent/dir",
                                           input: open("/dev/null", O_RDONLY | O_CLOEXEC))
        guard case .failure(let failure) = started else { Issue.record("it started"); return }
        #expect(failure.description == "cannot start /bin/true: No such file or directory")
    }
}

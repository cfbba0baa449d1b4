import Glibc
import JobdLocks
import JobdRunner
import Testing

/// Issue 39: runs are spawned with posix_spawn directly. What a job sees of it: its own session,
/// stdin from what it was given, its working directory and environment, and no descriptor of jobd's.
@Suite struct ProcessSpawnerTests {
    static func lines(of executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String = "/",
                      input: Int32 = open("/dev/null", O_RDONLY | O_CLOEXEC)) async throws -> (lines: [String], exit: RunReactor.Exit) {
        let reactor = RunReactor()
        try reactor.prepare().get()
        let spawned = try ProcessSpawner.spawn(executable, arguments: arguments, environment: environment, workingDirectory: directory, input: input).get()
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
}

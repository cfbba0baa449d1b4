import Glibc
import JobdLocks
import JobdProcess
import JobdRunner
import Testing

/// Issue 39: one thread reads every run's pipes and sees its process end. What a user checks in
/// the journal: each line of a run, in order per stream, and how its command exited.
@Suite struct RunReactorTests {
    struct Followed {
        var output: [String] = []
        var error: [String] = []
        var exit: RunReactor.Exit
    }

    static func follow(_ script: String, on reactor: RunReactor = RunReactor(), arguments: [String] = []) async throws -> Followed {
        try reactor.prepare().get()
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let spawned = try ProcessSpawner.spawn("/bin/sh", arguments: ["-c", script] + arguments, environment: [:],
                                               workingDirectory: "/", input: input).get()
        let lines = LockedBox<[(String, RunReactor.Stream)]>([])
        let exit = await reactor.follow(spawned, runID: 0) { line, stream in lines.withLock { $0.append((line, stream)) } }
        let all = lines.withLock { $0 }
        return Followed(output: all.filter { $0.1 == .standardOutput }.map(\.0),
                        error: all.filter { $0.1 == .standardError }.map(\.0), exit: exit)
    }

    @Test func aRunsLinesArriveInOrderPerStreamWithItsExitStatus() async throws {
        let run = try await Self.follow("echo a; echo b >&2; echo c; printf 'no newline' >&2; exit 3")
        #expect(run.output == ["a", "c"])
        #expect(run.error == ["b", "no newline"])
        #expect(run.exit == .exited(3))
    }

    @Test(arguments: [SIGTERM, SIGSEGV, SIGKILL])
    func aKilledProcessEndsWithItsSignal(_ signal: Int32) async throws {
        let run = try await Self.follow("echo before; kill -\(signal) $$")
        #expect(run.output == ["before"])
        #expect(run.exit == .signaled(signal))
    }

    /// The run ends when its process has exited, with what it wrote, as with swift-subprocess: a
    /// child it left behind with its pipes holds neither the run nor its end (jobd stops it then).
    @Test func aChildLeftBehindDoesNotHoldTheRun() async throws {
        let run = try await Self.follow("sleep 600 & echo parent $!; echo more >&2; exit 4")
        let child = try #require(run.output.first?.split(separator: " ").last.flatMap { Int32($0) })
        kill(child, SIGKILL)
        #expect(run.output == ["parent \(child)"] && run.error == ["more"])
        #expect(run.exit == .exited(4))
    }

    @Test func manyRunsAtOnceEachGetTheirOwnLinesAndStatus() async throws {
        let reactor = RunReactor()
        let results = try await withThrowingTaskGroup(of: (Int, Followed).self) { group in
            for index in 0..<200 {
                group.addTask {
                    (index, try await Self.follow("echo out $0; echo err $0 >&2; exit $(($0 % 100))", on: reactor, arguments: [String(index)]))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 200)
        for (index, run) in results {
            #expect(run.output == ["out \(index)"] && run.error == ["err \(index)"] && run.exit == .exited(Int32(index % 100)), "run \(index)")
        }
    }

    /// A job that writes without end is read only as fast as its lines are taken: while the one
    /// who takes them is held, the writer blocks on its full pipe, and what was read stays within
    /// two read buffers of the pipe's size.
    @Test(.timeLimit(.minutes(1)))
    func aWriterWithoutEndIsReadOnlyAsFastAsItsLinesAreTaken() async throws {
        let reactor = RunReactor()
        try reactor.prepare().get()
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let spawned = try ProcessSpawner.spawn("/usr/bin/yes", arguments: [], environment: [:], workingDirectory: "/", input: input).get()
        let held = Gate()
        let taken = LockedBox(0)
        async let exit = reactor.follow(spawned, runID: 0) { _, _ in
            taken.withLock { $0 += 1 }
            held.pass()
        }
        // Once the first line is held, the writer blocks as soon as its pipe is full again: the
        // kernel says where it waits (no event tells of it).
        while taken.withLock({ $0 }) == 0 || !Self.waitsToWrite(spawned.pid) { usleep(10_000) }
        #expect(taken.withLock { $0 } == 1, "one line taken, the rest waits")
        kill(spawned.pid, SIGKILL)
        held.open()
        #expect(await exit == .signaled(SIGKILL))
        // "y\n" a line: at most the pipe (64 KiB by default), the read taken before the hold, and
        // what the writer put in the room that read made (90,112 bytes seen); without the hold, millions.
        #expect(taken.withLock { $0 } * 2 <= 65_536 + 2 * RunReactor.bufferSize)
    }

    static func waitsToWrite(_ pid: Int32) -> Bool {
        let descriptor = open("/proc/\(pid)/wchan", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &bytes, bytes.count)
        return count > 0 && String(decoding: bytes.prefix(count), as: UTF8.self).contains("pipe_write")
    }

    /// Blocks whoever passes until it is opened.
    final class Gate: @unchecked Sendable {
        private let state = LockedBox(false)
        private let shared: UnsafeMutablePointer<sem_t>

        init() {
            shared = .allocate(capacity: 1)
            sem_init(shared, 0, 0)
        }

        deinit {
            sem_destroy(shared)
            shared.deallocate()
        }

        func pass() {
            if state.withLock({ $0 }) { return }
            sem_wait(shared)
            sem_post(shared)
        }

        func open() {
            state.withLock { $0 = true }
            sem_post(shared)
        }
    }
}

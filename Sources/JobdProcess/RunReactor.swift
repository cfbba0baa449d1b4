import Glibc
import JobdLocks

/// One thread that reads the output of every run in flight and sees each run's process end
/// (issue 39): one epoll set over every run's stdout and stderr pipes and its pidfd, one shared
/// read buffer, and per run only its line splitters (made at its first byte) and what to call.
/// It replaces swift-subprocess's two tasks per run, each waiting with a zero-filled buffer as
/// large as the pipe (64 KiB), which made a sleeping run cost jobd about 183 KiB.
///
/// A run's lines are handed over on this thread, in order per stream, and its pipe is read only as
/// fast as they are taken: one read of at most ``bufferSize`` per ready pipe and round, so a job
/// that writes without end neither grows jobd's memory nor starves the other runs.
package final class RunReactor: Sendable {
    /// Which of a run's pipes a line came from.
    package enum Stream: Sendable, Equatable {
        case standardOutput, standardError
    }

    /// How a run's process ended.
    package enum Exit: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// Why the reactor's thread could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// A run the reactor followed until a handover: its process and pipes, and the start of a line
    /// on each pipe that it had read but not yet ended.
    package struct Detached: Sendable {
        package var runID: UInt64
        package var process: SpawnedProcess
        package var pendingOutput: [UInt8]
        package var pendingError: [UInt8]
    }

    /// The shared read buffer: at most this much of one pipe is read at a time.
    package static let bufferSize = 16_384

    private let loop = LockedBox<RunReactorLoop?>(nil)

    package init() {}

    deinit {
        loop.withLock { $0 }?.stop()
    }

    /// Starts the thread unless it runs: call it before a run's process is spawned, so that a
    /// reactor that cannot start is a run that does not start.
    package func prepare() -> Result<Void, Failure> {
        loop.withLock { loop -> Result<Void, Failure> in
            if loop != nil { return .success(()) }
            switch RunReactorLoop.start(bufferSize: Self.bufferSize) {
            case .success(let started):
                loop = started
                return .success(())
            case .failure(let failure):
                return .failure(failure)
            }
        }
    }

    /// Follows `process` until it has exited, calling `line` for each line it writes (on the
    /// reactor's thread), to the end of its pipes or what they hold when it exits (a process it
    /// left behind may keep them open); closes its descriptors and calls `done` with how it
    /// exited, on the reactor's thread. Call ``prepare()`` first.
    /// `pending` is what was read of the run's last line on each pipe before a handover.
    package func follow(
        _ process: SpawnedProcess, runID: UInt64, pending: (output: [UInt8], error: [UInt8]) = ([], []),
        line: @escaping @Sendable (String, Stream) -> Void, done: @escaping @Sendable (Exit) -> Void
    ) {
        guard let loop = loop.withLock({ $0 }) else { preconditionFailure("RunReactor.follow before prepare()") }
        let followed = RunReactorLoop.Followed(process, runID: runID, line: line, done: done)
        if !pending.output.isEmpty { followed.output = OutputLineSplitter(pending: pending.output) }
        if !pending.error.isEmpty { followed.error = OutputLineSplitter(pending: pending.error) }
        loop.add(followed)
    }

    /// ``follow(_:runID:pending:line:done:)``, awaited: for a caller that has a task to spare.
    package func follow(
        _ process: SpawnedProcess, runID: UInt64, pending: (output: [UInt8], error: [UInt8]) = ([], []),
        line: @escaping @Sendable (String, Stream) -> Void
    ) async -> Exit {
        await withCheckedContinuation { continuation in follow(process, runID: runID, pending: pending, line: line) { continuation.resume(returning: $0) } }
    }

    /// The longest answer ``awaitAnswer(on:done:)`` reads; the rest is not.
    package static let answerLimit = 65_536

    /// Reads `socket` to its end (at most ``answerLimit``), closes it, and calls `done` with what it read, on
    /// the reactor's thread: a run's jobd-cgexec answers there, nothing once it executed the
    /// command (its end closes) or why it did not. A thread no longer waits for each answer. Call
    /// ``prepare()`` first.
    package func awaitAnswer(on socket: Int32, done: @escaping @Sendable ([UInt8]) -> Void) {
        guard let loop = loop.withLock({ $0 }) else { preconditionFailure("RunReactor.awaitAnswer before prepare()") }
        loop.add(RunReactorLoop.Awaited(socket: socket, done: done))
    }

    /// Stops following every run and returns them, their descriptors open (a handover). The
    /// reactor follows nothing more afterwards.
    package func detach() -> [Detached] {
        guard let loop = loop.withLock({ $0 }) else { return [] }
        return loop.detach()
    }
}

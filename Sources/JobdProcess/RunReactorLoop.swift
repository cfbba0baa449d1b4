import CEventfd
import CSpawn
import Glibc
import JobdLocks
import JobdSystem

/// ``RunReactor``'s thread: an epoll set, an eventfd that stops it, and the runs it follows. Each
/// registered descriptor carries its run's number and which of the run's three it is, so that an
/// event for a run already gone is recognised and dropped, whatever descriptor number it had.
final class RunReactorLoop: Sendable {
    /// One run followed: what only the reactor's thread touches once it is added.
    final class Followed: @unchecked Sendable {
        var process: SpawnedProcess
        /// The run's number (`JOBD_RUN`), by which a handover names what it hands over.
        let runID: UInt64
        let line: @Sendable (String, RunReactor.Stream) -> Void
        let done: @Sendable (RunReactor.Exit) -> Void
        var output: OutputLineSplitter?
        var error: OutputLineSplitter?
        /// Its descriptors still registered: an adopted run may have no pipes (a crashed jobd's).
        var open: Int
        var exit: RunReactor.Exit?

        init(_ process: SpawnedProcess, runID: UInt64, line: @escaping @Sendable (String, RunReactor.Stream) -> Void,
             done: @escaping @Sendable (RunReactor.Exit) -> Void) {
            self.process = process
            self.runID = runID
            self.line = line
            self.done = done
            open = [process.standardOutput, process.standardError, process.pidfd].count { $0 >= 0 }
        }
    }

    /// An answer awaited on a socket (``RunReactor/awaitAnswer(on:done:)``): what came so far.
    final class Awaited: @unchecked Sendable {
        let socket: Int32
        let done: @Sendable ([UInt8]) -> Void
        var reply: [UInt8] = []

        init(socket: Int32, done: @escaping @Sendable ([UInt8]) -> Void) {
            self.socket = socket
            self.done = done
        }
    }

    private enum Slot: UInt64 { case output = 0, error = 1, exit = 2, answer = 3 }

    private let epoll: Int32
    private let wake: Int32
    private let bufferSize: Int
    private let runs = LockedBox<(next: UInt64, followed: [UInt64: Followed])>((1, [:]))
    /// Answers awaited, numbered as the runs are.
    private let answers = LockedBox<[UInt64: Awaited]>([:])
    /// Set once the thread has left its loop: a handover takes the runs only then.
    private let ended = Condition()
    private let hasEnded = LockedBox(false)

    private init(epoll: Int32, wake: Int32, bufferSize: Int) {
        self.epoll = epoll
        self.wake = wake
        self.bufferSize = bufferSize
    }

    static func start(bufferSize: Int) -> Result<RunReactorLoop, RunReactor.Failure> {
        let epoll = epoll_create1(JOBD_EPOLL_CLOEXEC)
        guard epoll >= 0 else { return .failure(RunReactor.Failure(description: "cannot make an epoll set: \(String(cString: strerror(errno)))")) }
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let code = errno
            close(epoll)
            return .failure(RunReactor.Failure(description: "cannot make an eventfd: \(String(cString: strerror(code)))"))
        }
        let loop = RunReactorLoop(epoll: epoll, wake: wake, bufferSize: bufferSize)
        var event = jobd_epoll_event(events: UInt32(JOBD_EPOLLIN), data: jobd_epoll_data(u64: 0))
        epoll_ctl(epoll, JOBD_EPOLL_CTL_ADD, wake, &event)
        do {
            try DetachedThread.start { loop.run() }
        } catch {
            close(wake)
            close(epoll)
            return .failure(RunReactor.Failure(description: error.description))
        }
        return .success(loop)
    }

    /// Asks the thread to end; it closes the epoll set and the eventfd on its way out.
    func stop() {
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    func add(_ run: Followed) {
        let number = runs.withLock { runs in
            let number = runs.next
            runs.next += 1
            runs.followed[number] = run
            return number
        }
        let descriptors = [(run.process.standardOutput, Slot.output), (run.process.standardError, Slot.error), (run.process.pidfd, Slot.exit)]
        for (descriptor, slot) in descriptors where descriptor >= 0 {
            var event = jobd_epoll_event(events: UInt32(JOBD_EPOLLIN), data: jobd_epoll_data(u64: number << 2 | slot.rawValue))
            epoll_ctl(epoll, JOBD_EPOLL_CTL_ADD, descriptor, &event)
        }
    }

    func add(_ awaited: Awaited) {
        let number = runs.withLock { runs in
            let number = runs.next
            runs.next += 1
            return number
        }
        answers.withLock { $0[number] = awaited }
        var event = jobd_epoll_event(events: UInt32(JOBD_EPOLLIN), data: jobd_epoll_data(u64: number << 2 | Slot.answer.rawValue))
        epoll_ctl(epoll, JOBD_EPOLL_CTL_ADD, awaited.socket, &event)
    }

    private func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        var events = [jobd_epoll_event](repeating: jobd_epoll_event(), count: 64)
        defer {
            buffer.deallocate()
            close(epoll)
            close(wake)
            ended.withLock {
                hasEnded.withLock { $0 = true }
                ended.broadcast()
            }
        }
        while true {
            let count = events.withUnsafeMutableBufferPointer { events in
                retryingOnInterrupt { epoll_wait(epoll, events.baseAddress, Int32(events.count), -1) }
            }
            guard count >= 0 else { return }
            for event in events.prefix(Int(count)) {
                let token = event.data.u64
                if token == 0 { return }
                guard let slot = Slot(rawValue: token & 3) else { continue }
                if slot == .answer {
                    receive(token >> 2, into: buffer)
                    continue
                }
                guard let run = runs.withLock({ $0.followed[token >> 2] }) else { continue }
                switch slot {
                case .output, .error: read(run, slot, into: buffer)
                case .exit: reap(run, into: buffer)
                case .answer: break
                }
                if run.open == 0 { finish(run, number: token >> 2) }
            }
        }
    }

    /// Reads what an awaited answer's socket holds; at its end (or an error, or ``RunReactor/answerLimit``)
    /// closes it and hands the answer over.
    private func receive(_ number: UInt64, into buffer: UnsafeMutableRawBufferPointer) {
        guard let awaited = answers.withLock({ $0[number] }) else { return }
        while true {
            let count = retryingOnInterrupt { recv(awaited.socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && errno == EAGAIN { return }
            guard count > 0, awaited.reply.count < RunReactor.answerLimit else { break }
            awaited.reply.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<min(count, RunReactor.answerLimit - awaited.reply.count)]))
        }
        answers.withLock { answers in
            answers.removeValue(forKey: number)
            if answers.isEmpty { answers = [:] }
        }
        release(awaited.socket)
        awaited.done(awaited.reply)
    }

    /// One read of at most the buffer from a run's pipe, its lines handed over; at its end the
    /// rest of the last line, and the pipe is closed. Returns whether it read anything.
    @discardableResult
    private func read(_ run: Followed, _ slot: Slot, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        let descriptor = slot == .output ? run.process.standardOutput : run.process.standardError
        guard descriptor >= 0 else { return false }
        let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return false }
        let stream: RunReactor.Stream = slot == .output ? .standardOutput : .standardError
        let emit = { (line: String) in run.line(line, stream) }
        // A splitter is made at a run's first byte: a run that writes nothing holds no buffer.
        // Mutated in place through the run, so that its pending bytes are never copied.
        if count > 0 {
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            if slot == .output {
                if run.output == nil { run.output = OutputLineSplitter() }
                run.output!.append(bytes, emit: emit)
            } else {
                if run.error == nil { run.error = OutputLineSplitter() }
                run.error!.append(bytes, emit: emit)
            }
            return true
        }
        // The end of the stream, or a pipe that failed: the exit status still tells how the run ended.
        end(run, slot, emit: emit)
        return false
    }

    /// The rest of a stream's last line, and its pipe closed.
    private func end(_ run: Followed, _ slot: Slot, emit: (String) -> Void) {
        if slot == .output {
            run.output?.finish(emit: emit)
            run.output = nil
            release(run.process.standardOutput)
            run.process.standardOutput = -1
        } else {
            run.error?.finish(emit: emit)
            run.error = nil
            release(run.process.standardError)
            run.process.standardError = -1
        }
        run.open -= 1
    }

    /// The process exited: reaped, and its pipes read for what it wrote before it ended, as much as
    /// a pipe holds; what processes it left behind write after that is not the run's (as with
    /// swift-subprocess), so that they hold neither the run nor its end.
    private func reap(_ run: Followed, into buffer: UnsafeMutableRawBufferPointer) {
        var status: Int32 = 0
        let reaped = retryingOnInterrupt { waitpid(run.process.pid, &status, WNOHANG) }
        // 0: not exited after all (the pidfd stays registered). Another reaper (none in jobd) would
        // leave no status: the run then ends as killed rather than never.
        if reaped == 0 { return }
        let signal = status & 0x7f
        if reaped == run.process.pid { run.exit = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal) }
        release(run.process.pidfd)
        run.open -= 1
        for slot in [Slot.output, .error] {
            var reads = 0
            while reads < 65_536 / bufferSize + 1, read(run, slot, into: buffer) { reads += 1 }
            let stream: RunReactor.Stream = slot == .output ? .standardOutput : .standardError
            if (slot == .output ? run.process.standardOutput : run.process.standardError) >= 0 {
                end(run, slot) { run.line($0, stream) }
            }
        }
    }

    /// Ends the thread and returns every run it followed, with its descriptors open and what it
    /// wrote of a line not yet ended (a handover: the next jobd reads on where this one stopped).
    /// Their `done` is never called.
    func detach() -> [RunReactor.Detached] {
        stop()
        ended.withLock {
            while !hasEnded.withLock({ $0 }) { ended.wait() }
        }
        // Left in place: their continuations are never resumed, and jobd exits.
        let followed = runs.withLock { $0.followed.values }
        return followed.map { run in
            RunReactor.Detached(runID: run.runID, process: run.process, pendingOutput: run.output?.pendingBytes ?? [],
                                pendingError: run.error?.pendingBytes ?? [])
        }
    }

    private func finish(_ run: Followed, number: UInt64) {
        runs.withLock { runs in
            runs.followed.removeValue(forKey: number)
            // The table keeps its largest burst's capacity otherwise (see RunAdmission.leave).
            if runs.followed.isEmpty { runs.followed = [:] }
        }
        run.done(run.exit ?? .signaled(SIGKILL))
    }

    private func release(_ descriptor: Int32) {
        epoll_ctl(epoll, JOBD_EPOLL_CTL_DEL, descriptor, nil)
        close(descriptor)
    }
}

internal import CTimerfd
import Glibc

/// The timing thread: sleeps in `poll` on one timerfd (`CLOCK_MONOTONIC`, absolute deadlines) and an
/// eventfd that asks it to stop, and calls back each time the timerfd expires.
final class TimerfdDriver: Sendable {
    private let timerFD: Int32
    private let wakeFD: Int32

    init() throws(TimerError) {
        let timerFD = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC) | Int32(TFD_NONBLOCK))
        guard timerFD >= 0 else { throw TimerError(operation: "timerfd_create", errno: errno) }
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            let error = errno
            close(timerFD)
            throw TimerError(operation: "eventfd", errno: error)
        }
        self.timerFD = timerFD
        self.wakeFD = wakeFD
    }

    deinit {
        close(timerFD)
        close(wakeFD)
    }

    /// Arms the kernel timer for an absolute `CLOCK_MONOTONIC` time, or disarms it for `nil`.
    func arm(atNanoseconds deadline: UInt64?) {
        var spec = itimerspec()
        if let deadline {
            let clamped = max(deadline, 1)  // an all-zero it_value would disarm instead
            spec.it_value.tv_sec = Int(clamped / 1_000_000_000)
            spec.it_value.tv_nsec = Int(clamped % 1_000_000_000)
        }
        // Cannot fail for a valid fd and a normalized timespec; a failure here is a bug.
        let result = timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        precondition(result == 0, "timerfd_settime failed: errno \(errno)")
    }

    /// Asks the thread to stop; it exits at its next wake-up.
    func stop() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Starts the thread. `onExpiry` is called on it with the current time after each expiry;
    /// the thread ends when it returns `false` or when ``stop()`` is called.
    func start(onExpiry: @escaping @Sendable (MonotonicInstant) -> Bool) {
        let context = Unmanaged.passRetained(ThreadContext(driver: self, onExpiry: onExpiry)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<ThreadContext>.fromOpaque(raw!).takeRetainedValue()
            context.driver.run(context.onExpiry)
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }

    private final class ThreadContext {
        let driver: TimerfdDriver
        let onExpiry: @Sendable (MonotonicInstant) -> Bool
        init(driver: TimerfdDriver, onExpiry: @escaping @Sendable (MonotonicInstant) -> Bool) {
            self.driver = driver
            self.onExpiry = onExpiry
        }
    }

    private func run(_ onExpiry: @Sendable (MonotonicInstant) -> Bool) {
        var fds = [pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                preconditionFailure("poll on the timerfd failed: errno \(errno)")
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents != 0 {
                // The count of expirations is not needed; reading resets readiness. EAGAIN means
                // another thread re-armed in between, which is harmless: nothing may be due.
                var expirations: UInt64 = 0
                _ = read(timerFD, &expirations, 8)
            }
            if !onExpiry(.now()) { return }
        }
    }
}

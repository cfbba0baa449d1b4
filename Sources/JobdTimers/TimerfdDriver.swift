internal import CTimerfd
import Glibc

/// The timing thread: sleeps in `poll` on one timerfd (`CLOCK_MONOTONIC`, absolute deadlines) and an
/// eventfd that asks it to stop, and calls back each time the timerfd expires.
///
/// A third fd hears the wall clock being set: a `CLOCK_REALTIME` timerfd armed far in the future
/// with `TFD_TIMER_CANCEL_ON_SET`, which the kernel cancels (`ECANCELED`) whenever the clock is set
/// or jumps, as systemd watches for it. Monotonic deadlines do not move; calendar schedules must.
final class TimerfdDriver: Sendable {
    private let timerFD: Int32
    private let wakeFD: Int32
    private let clockFD: Int32

    init() throws(TimerError) {
        let timerFD = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC) | Int32(TFD_NONBLOCK))
        guard timerFD >= 0 else { throw TimerError(operation: "timerfd_create", errno: errno) }
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            let error = errno
            close(timerFD)
            throw TimerError(operation: "eventfd", errno: error)
        }
        let clockFD = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC) | Int32(TFD_NONBLOCK))
        guard clockFD >= 0 else {
            let error = errno
            close(timerFD)
            close(wakeFD)
            throw TimerError(operation: "timerfd_create(CLOCK_REALTIME)", errno: error)
        }
        self.timerFD = timerFD
        self.wakeFD = wakeFD
        self.clockFD = clockFD
        if let error = armClockWatch() {
            close(timerFD)
            close(wakeFD)
            close(clockFD)
            throw TimerError(operation: "timerfd_settime(CLOCK_REALTIME, TFD_TIMER_CANCEL_ON_SET)", errno: error)
        }
    }

    deinit {
        close(timerFD)
        close(wakeFD)
        close(clockFD)
    }

    /// When the wall-clock watch is armed: `TIME_T_MAX`, as systemd arms it (the kernel clamps it to
    /// the year 2262), so that it is cancelled by a clock set and never expires. `Int32.max` expired
    /// in 2038, after which calendar jobs silently stopped following clock changes.
    static let clockWatchSeconds = Int.max

    /// Arms the wall-clock watch: an absolute time far away, cancelled by the kernel on a clock set.
    /// Returns the errno where the kernel refused.
    private func armClockWatch() -> Int32? {
        var spec = itimerspec()
        spec.it_value.tv_sec = Self.clockWatchSeconds
        let result = timerfd_settime(clockFD, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil)
        return result == 0 ? nil : errno
    }

    /// How long until the wall-clock watch would expire, as the kernel reports it; `nil` when it is
    /// not armed. For tests: the watch must outlast any real clock.
    func clockWatchRemaining() -> Duration? {
        var spec = itimerspec()
        guard timerfd_gettime(clockFD, &spec) == 0, spec.it_value.tv_sec > 0 || spec.it_value.tv_nsec > 0 else { return nil }
        return .seconds(spec.it_value.tv_sec) + .nanoseconds(spec.it_value.tv_nsec)
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

    /// Starts the thread. `onExpiry` is called on it with the current time after each expiry, and
    /// `onClockSet` each time the wall clock was set; the thread ends when `onExpiry` returns `false`
    /// or when ``stop()`` is called.
    func start(
        onExpiry: @escaping @Sendable (MonotonicInstant) -> Bool, onClockSet: @escaping @Sendable () -> Void
    ) {
        let context = Unmanaged.passRetained(ThreadContext(driver: self, onExpiry: onExpiry, onClockSet: onClockSet)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<ThreadContext>.fromOpaque(raw!).takeRetainedValue()
            context.driver.run(context.onExpiry, onClockSet: context.onClockSet)
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }

    private final class ThreadContext {
        let driver: TimerfdDriver
        let onExpiry: @Sendable (MonotonicInstant) -> Bool
        let onClockSet: @Sendable () -> Void
        init(driver: TimerfdDriver, onExpiry: @escaping @Sendable (MonotonicInstant) -> Bool,
             onClockSet: @escaping @Sendable () -> Void) {
            self.driver = driver
            self.onExpiry = onExpiry
            self.onClockSet = onClockSet
        }
    }

    private func run(_ onExpiry: @Sendable (MonotonicInstant) -> Bool, onClockSet: @Sendable () -> Void) {
        var fds = [pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: clockFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 3, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                preconditionFailure("poll on the timerfd failed: errno \(errno)")
            }
            if fds[1].revents != 0 { return }
            if fds[2].revents != 0 {
                // Cancelled (the clock was set) or, should it ever happen, expired: either way the
                // watch must be armed again and schedules computed again. If it cannot be armed,
                // stop watching rather than spin on a readable fd.
                var expirations: UInt64 = 0
                let count = read(clockFD, &expirations, 8)
                if count == 8 || (count < 0 && errno == ECANCELED) {
                    if armClockWatch() != nil { fds[2].fd = -1 }
                    onClockSet()
                }
            }
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

import Glibc

/// A condition variable over jobd's ``Lock``, in place of Foundation's `NSCondition`: a thread
/// waits, inside ``withLock(_:)``, until another changes the guarded state and broadcasts.
/// pthread-based, as the lock is, so that the thread sanitizer sees the hand-over.
package final class Condition: @unchecked Sendable {
    private let lock = Lock()
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        condition = .pthreadObject(pthread_cond_t(), "pthread_cond_init") { pthread_cond_init($0, nil) }
    }

    deinit {
        condition.destroyPthreadObject(pthread_cond_destroy)
    }

    /// Runs `body` with the lock held. No callback of anyone else's may run inside.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try lock.withLock(body)
    }

    /// Releases the lock until a ``broadcast()`` (or a spurious wake-up), then takes it again:
    /// only inside ``withLock(_:)``, in a loop that checks what it waits for.
    package func wait() {
        pthread_cond_wait(condition, lock.mutex)
    }

    /// Wakes every thread in ``wait()``.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

import Glibc

/// jobd's one lock: a pthread mutex.
///
/// Not `Synchronization.Mutex`: on Linux that is built on raw futexes, which the thread sanitizer
/// cannot see, so every access under it would be reported as a race and a real race would drown
/// in the noise. jobd is tested under the thread sanitizer, so everything locks with this.
package final class Lock: @unchecked Sendable {
    /// The mutex itself, for ``Condition``, whose waits release it.
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .pthreadObject(pthread_mutex_t(), "pthread_mutex_init") { pthread_mutex_init($0, nil) }
    }

    deinit {
        mutex.destroyPthreadObject(pthread_mutex_destroy)
    }

    /// Runs `body` with the lock held. No callback of anyone else's may run inside.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

import Glibc

/// jobd's one way to start a thread of its own, for work that may block (reading the
/// configuration, waiting on inotify, looking up a run's account), with `pthread_create`'s result
/// checked. Blocking work never runs on Swift's concurrency pool, whose few threads (one per core)
/// jobd's main loop and runs share.
package enum DetachedThread {
    package struct StartError: Error, CustomStringConvertible {
        package var code: Int32
        package var description: String { "cannot start a thread: \(String(cString: strerror(code)))" }
    }

    /// Runs `body` on a new detached thread; it ends when `body` returns.
    package static func start(_ body: @escaping @Sendable () -> Void) throws(StartError) {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let result = pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            throw StartError(code: result)
        }
        pthread_detach(thread)
    }
}

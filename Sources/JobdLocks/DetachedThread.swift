import Glibc

/// jobd's one way to start a thread of its own (for work that may block: reading the
/// configuration, waiting on inotify), with `pthread_create`'s result checked.
enum DaemonThread {
    struct StartError: Error, CustomStringConvertible {
        var code: Int32
        var description: String { "cannot start a thread: \(String(cString: strerror(code)))" }
    }

    /// Runs `body` on a new detached thread; it ends when `body` returns.
    static func start(_ body: @escaping @Sendable () -> Void) throws(StartError) {
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

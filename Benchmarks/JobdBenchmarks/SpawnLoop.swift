import Foundation
import Glibc
import JobdTestKit
import JobdTimers

/// The machine's limit for part 3: `posix_spawn` of `/bin/true` and `waitpid`, in a loop, with
/// nothing else around it.
enum SpawnLoop {
    /// Runs the loop for `seconds` on each of `threads` threads at once; returns spawns per second.
    static func spawnsPerSecond(seconds: Double, threads: Int = 1) -> Double {
        let deadline = MonotonicInstant.now() + .nanoseconds(Int64(seconds * 1e9))
        let total = Guarded(0)
        let group = DispatchGroup()
        let start = MonotonicInstant.now()
        for _ in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                let count = loop(until: deadline)
                total.withLock { $0 += count }
                group.leave()
            }
        }
        group.wait()
        let elapsed = Double(MonotonicInstant.now().duration(since: start).nanosecondsSaturated) / 1e9
        return Double(total.withLock { $0 }) / elapsed
    }

    private static func loop(until deadline: MonotonicInstant) -> Int {
        let path = strdup("/bin/true")
        defer { free(path) }
        var argv: [UnsafeMutablePointer<CChar>?] = [path, nil]
        var count = 0
        while MonotonicInstant.now() < deadline {
            var pid: pid_t = 0
            guard let path, posix_spawn(&pid, path, nil, nil, &argv, environ) == 0 else { break }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            count += 1
        }
        return count
    }
}

import Glibc
import JobdTimers

/// A command timed from its spawn to its exit, with `posix_spawn` and `waitpid`: Foundation's
/// `Process.waitUntilExit()` on Linux looks for the exit every 50 ms, which rounded a 100 ms
/// `jobctl list` up to 150 ms.
enum TimedCommand {
    /// Runs `executable` with `arguments`, its standard input and output on `/dev/null`; returns
    /// how long it took and its exit status (128 plus the signal's number if one killed it).
    static func run(_ executable: String, _ arguments: [String]) throws -> (nanoseconds: Int64, status: Int32) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = MonotonicInstant.now()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw TimedCommandError(errno: spawned) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let elapsed = MonotonicInstant.now().duration(since: start).nanosecondsSaturated
        let signal = status & 0x7f
        return (elapsed, signal == 0 ? (status >> 8) & 0xff : 128 + signal)
    }
}

struct TimedCommandError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { "cannot spawn: \(String(cString: strerror(errno)))" }
}

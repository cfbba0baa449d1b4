import Glibc
import JobdSystem

/// A program jobctl runs and waits for (the editor, systemctl), with jobctl's own standard
/// streams and environment.
enum ChildProcess {
    /// The exit status of `arguments` (searched in `PATH`), 128+N for a signal N, 127 when it
    /// could not be started.
    static func status(of arguments: [String]) -> Int32 {
        var pid: pid_t = 0
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawnp(&pid, arguments[0], nil, nil, &argv, environ) == 0 else { return 127 }
        var status: Int32 = 0
        _ = retryingOnInterrupt { waitpid(pid, &status, 0) }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

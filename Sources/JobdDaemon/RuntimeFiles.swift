import Glibc
import JobdControl
import Logging

/// What jobd keeps in its runtime directory: `jobd.pid` and the control socket. Without them jobd
/// still schedules (say, run by hand without access to /run); it says so once.
final class RuntimeFiles {
    private let pidFile: String
    private let server: ControlServer?
    private var wrotePidFile = false

    init(
        directory: String, logger: Logger,
        handler: @escaping @Sendable (ControlRequest, ControlReply) -> Void
    ) {
        pidFile = directory + "/" + ControlProtocol.pidFileName
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            logger.warning("no control socket or pid file: cannot create \(directory): \(String(cString: strerror(errno)))")
            server = nil
            return
        }
        do {
            server = try ControlServer(path: directory + "/" + ControlProtocol.socketName, handler: handler)
        } catch {
            logger.warning("no control socket: \(error)")
            server = nil
        }
        // Written atomically: a reader never sees half a pid.
        let temporary = pidFile + ".tmp"
        let text = "\(getpid())\n"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd >= 0, write(fd, text, text.utf8.count) == text.utf8.count, close(fd) == 0, rename(temporary, pidFile) == 0 {
            wrotePidFile = true
        } else {
            logger.warning("cannot write \(pidFile): \(String(cString: strerror(errno)))")
        }
    }

    func remove() {
        server?.stop()
        if wrotePidFile { unlink(pidFile) }
    }
}

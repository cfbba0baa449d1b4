import Glibc
import JobdControl
import JobdSystem
import Logging

/// What jobd keeps in its runtime directory: `jobd.pid` (locked, see ``PidFileLock``) and the
/// control socket. Without them jobd still schedules (say, run by hand without access to /run);
/// it says so once.
final class RuntimeFiles {
    private let lock: PidFileLock?
    private let server: ControlServer?

    /// Whether jobd may go on: with the lock on `jobd.pid` (or without one, where none can be
    /// had), or not at all, because another jobd holds it.
    enum Admission {
        case proceed(PidFileLock?)
        case alreadyRunning
    }

    /// Takes the lock on `directory/jobd.pid`. When another jobd holds it, prints
    /// `jobd: already running as pid N (lock PATH)` to stderr, having touched nothing.
    static func lock(directory: String, logger: Logger) -> Admission {
        switch PidFileLock.acquire(directory: directory, fileName: ControlProtocol.pidFileName) {
        case .locked(let lock):
            return .proceed(lock)
        case .held(let pid, let path):
            let line = Array("jobd: already running as pid \(pid.map(String.init) ?? "unknown") (lock \(path))\n".utf8)
            _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            return .alreadyRunning
        case .unavailable(let reason):
            logger.warning("no control socket or pid file: \(reason)")
            return .proceed(nil)
        }
    }

    /// The group whose members may list and look: `JOBD_READERS_GROUP` names another group than
    /// `jobd`, for tests, which must not add groups to the machine.
    static var readersGroupName: String {
        getenv("JOBD_READERS_GROUP").map { String(cString: $0) } ?? ControlAccess.readersGroupName
    }

    /// With the lock taken: the control socket, then the pid in the pid file.
    init(lock: PidFileLock?, directory: String, logger: Logger, handler: @escaping @Sendable (ControlRequest, ControlReply) -> Void) {
        self.lock = lock
        guard let lock else {
            server = nil
            return
        }
        do {
            let access = ControlAccess(ownUID: geteuid(), readers: ControlAccess.readersGroup(named: Self.readersGroupName))
            server = try ControlServer(path: directory + "/" + ControlProtocol.socketName, access: access, handler: handler)
        } catch {
            logger.warning("no control socket: \(error)")
            server = nil
        }
        if let failure = lock.writePid() {
            logger.warning("cannot write \(lock.path): \(String(cString: strerror(failure)))")
        }
    }

    /// What applies `UserConnectionsMax=` to the control socket (nothing without one).
    var limitUserConnections: @Sendable (Int) -> Void {
        let server = server
        return { server?.limitUserConnections($0) }
    }

    func remove() {
        server?.stop()
        lock?.release()
    }
}

import Glibc
import JobdLocks
package import Logging
import SystemdKit

/// Sets up swift-log for a jobd process: the journal when jobd runs under systemd or a journald is
/// reachable, readable stderr lines otherwise.
package enum JobdLoggingSystem {
    /// The variable that overrides the choice: `journal`, `stderr` or `auto` (the default).
    package static let overrideVariable = "JOBD_LOG_TARGET"
    /// The lowest level written to stderr (`trace`, `debug`, `info`, `notice`, `warning`, `error`,
    /// `critical`); `info` by default. The journal gets every level it is given: `jobctl audit`
    /// reads the debug-level bookkeeping there, and `journalctl -p` filters what a reader sees.
    package static let stderrLevelVariable = "JOBD_LOG_LEVEL"

    /// How long ``shutdown()`` waits for the logging thread to write what waits.
    package static let flushTimeout: Duration = .seconds(5)

    private static let chosen = LockedBox<(target: LogTarget, queue: LogQueue)?>(nil)

    /// Chooses a target with ``chooseTarget(environment:stderrIdentity:journalReachable:)`` from the
    /// process environment and bootstraps swift-log with it, at level `level`.
    ///
    /// Every log call is queued (``QueuedLogHandler``) for one logging thread, which this call
    /// starts, and which writes the entries to the target (``LogQueue``): no log call waits for
    /// journald or for stderr's reader. Whoever bootstraps calls ``shutdown()`` before the process
    /// exits, so that what waits is written.
    ///
    /// Safe to call more than once: only the first call bootstraps (swift-log allows one bootstrap
    /// per process); later calls return the first call's target and change nothing. Do not also call
    /// `LoggingSystem.bootstrap` elsewhere in the process.
    @discardableResult
    package static func bootstrap(
        identifier: String = "jobd", level: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil
    ) -> LogTarget {
        chosen.withLock { chosen in
            if let chosen { return chosen.target }
            let target = chooseTarget(
                environment: currentEnvironment(), stderrIdentity: stderrIdentity(),
                journalReachable: { (try? Journal.probe()) != nil }
            )
            let queue = LogQueue { record in
                switch target.kind {
                case .journal: JournalLogHandler.write(record, identifier: identifier)
                case .stderr: ReadableLogHandler.write(record, identifier: identifier)
                }
            }
            // Without a thread of its own, the queue writes on each caller's thread, as a handler would.
            let noThread: String? = (try? queue.start()) == nil ? "cannot start the logging thread: log calls write themselves" : nil
            let level = target.kind == .stderr ? stderrLevel(getenv(stderrLevelVariable).map { String(cString: $0) }) : level
            LoggingSystem.bootstrap({ label, provider in
                var handler = QueuedLogHandler(label: label, queue: queue, metadataProvider: provider)
                handler.logLevel = level
                return handler
            }, metadataProvider: metadataProvider)
            if let noThread { Logger(label: "jobd.log").warning("\(noThread)") }
            chosen = (target, queue)
            return target
        }
    }

    /// Writes what waits in the queue and ends the logging thread, waiting at most
    /// ``flushTimeout``; log calls after it write on their own thread. Returns whether everything
    /// was written (`false` when journald took nothing meanwhile). Does nothing before ``bootstrap(identifier:level:metadataProvider:)``.
    @discardableResult
    package static func shutdown() -> Bool {
        guard let queue = chosen.withLock({ $0?.queue }) else { return true }
        return queue.stop(within: flushTimeout)
    }

    /// The target for a process with `environment`, whose stderr is the file `stderrIdentity`
    /// (device and inode, `nil` when fd 2 is closed):
    /// 1. `JOBD_LOG_TARGET=journal` or `stderr` wins;
    /// 2. the journal when `JOURNAL_STREAM` (`device:inode`, set by systemd) names stderr: systemd
    ///    already sends stderr to the journal, native entries carry the fields as well;
    /// 3. the journal when `journalReachable` (a journald listens on its socket);
    /// 4. stderr.
    package static func chooseTarget(
        environment: [String: String], stderrIdentity: (device: UInt64, inode: UInt64)?,
        journalReachable: () -> Bool
    ) -> LogTarget {
        var note = ""
        switch environment[overrideVariable] {
        case "journal": return LogTarget(.journal, reason: "\(overrideVariable)=journal")
        case "stderr": return LogTarget(.stderr, reason: "\(overrideVariable)=stderr")
        case nil, "", "auto": break
        case let other?: note = "; ignored \(overrideVariable)=\(other), expected journal, stderr or auto"
        }
        if let stream = environment["JOURNAL_STREAM"], let stderrIdentity {
            let parts = stream.split(separator: ":")
            if parts.count == 2, UInt64(parts[0]) == stderrIdentity.device, UInt64(parts[1]) == stderrIdentity.inode {
                return LogTarget(.journal, reason: "JOURNAL_STREAM=\(stream) is stderr" + note)
            }
        }
        if journalReachable() {
            return LogTarget(.journal, reason: "journald listens on \(Journal.socketPath)" + note)
        }
        return LogTarget(.stderr, reason: "no journald on \(Journal.socketPath)" + note)
    }

    /// The level of the stderr target for `JOBD_LOG_LEVEL=value`: `info` without one (or with one
    /// that names no level).
    package static func stderrLevel(_ value: String?) -> Logger.Level {
        value.flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .info
    }

    private static func stderrIdentity() -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard fstat(2, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    private static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        for name in [overrideVariable, "JOURNAL_STREAM"] {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }
}

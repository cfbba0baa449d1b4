import CSpawn
import Glibc
package import JobdProcess
package import JobdConfig

extension SystemRunDriver {
    /// Follows a process an earlier jobd handed over (issue 36): registered as this run's, so that
    /// a stop reaches it; its output read on from its pipes, after what the earlier jobd had read of
    /// a line; its end as the keeper recorded it, since only a parent learns an exit status.
    package func adopt(
        _ process: AdoptedProcess, definition: JobDefinition, runID: UInt64, fields: [String: String],
        mailed: (@Sendable (String) -> Void)?, reports: RunProcessReports
    ) {
        if case .failure(let failure) = reactor.prepare() { return reports.ended(.failure(PreparationError(description: failure.description))) }
        if case .failure(let failure) = timers.prepare() { return reports.ended(.failure(failure)) }
        registry.started(runID: runID, pid: process.pid, cgroup: process.cgroup)
        reports.started(process.pid) { [self] in
            // A process already gone has no pidfd: only its pipes are read to their end.
            let pidfd = process.isRunning ? pidfd_open(process.pid, 0) : -1
            if pidfd >= 0 { _ = fcntl(pidfd, F_SETFD, FD_CLOEXEC) }
            let spawned = ProcessSpawner.Spawned(pid: process.pid, pidfd: pidfd, standardOutput: process.standardOutput,
                                                 standardError: process.standardError)
            guard spawned.pidfd >= 0 || spawned.standardOutput >= 0 || spawned.standardError >= 0 else {
                return reports.ended(.success(.unknown))
            }
            follow(spawned, definition: definition, runID: runID, fields: fields, mailed: mailed,
                   pending: (process.pendingOutput, process.pendingError)) { _ in reports.ended(.success(.unknown)) }
        }
    }

    /// Stops following every run and returns them with their pipes open, for the next jobd.
    package func handOver() -> [RunReactor.Detached] {
        reactor.detach()
    }
}

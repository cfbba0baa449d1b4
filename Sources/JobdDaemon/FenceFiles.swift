import Glibc
import JobdConfig
import JobdFleet
import JobdRunner
import Logging

/// The fences of the fleet runs this node runs: `fence/RUN_ID` in the runtime directory (root's,
/// mode 0700), each holding its run's deadline, which the run's supervisor in `jobd-cgexec`
/// watches (``RunFence``). The fleet's thread writes them (``LeaseFences``), atomically.
struct FenceFiles: Sendable {
    let directory: String

    init(runtimeDirectory: String) {
        directory = runtimeDirectory + "/fence"
    }

    /// The fence of the run `runID` (`JOBD_RUN_ID`).
    func fence(of runID: String) -> RunFence {
        RunFence(path: directory + "/" + runID)
    }

    /// Makes the directory, and empties it of what an earlier jobd left: a run of that jobd's that
    /// still runs loses its fence, and stops, as its lease is no longer renewed.
    func prepare(logger: Logger) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            logger.error("fleet: cannot make \(directory): \(String(cString: strerror(errno))); claimed runs will be stopped by their fence at once")
        }
        guard case .success(let names) = FileSystem.directoryEntries(directory) else { return }
        for name in names { unlink(directory + "/" + name) }
    }

    /// The writer the fleet's thread extends and removes fences with.
    func leaseFences(logger: Logger) -> LeaseFences {
        LeaseFences(extend: { runID, deadline in
            let path = fence(of: runID).path
            do {
                try AtomicFile.replace(path, with: "\(deadline)\n", mode: 0o600)
            } catch {
                // The supervisor keeps the deadline it read last, and stops the run then.
                logger.error("fleet: cannot extend the fence of run \(runID): \(error)")
            }
        }, remove: { runID in
            let fence = fence(of: runID)
            unlink(fence.path)
            unlink(fence.stoppedPath)
        })
    }
}

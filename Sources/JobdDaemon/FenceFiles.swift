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

    /// Makes the directory. What an earlier jobd left in it stays until this one adopted its runs
    /// (``MainLoop/adoptRuns()``): the fence of a run it adopts is kept, every other removed.
    func prepare(logger: Logger) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            logger.error("fleet: cannot make \(directory): \(String(cString: strerror(errno))); claimed runs will be stopped by their fence at once")
        }
    }

    /// The names in the directory (run ids, and the supervisors' `.stopped` files).
    func names() -> [String] {
        guard case .success(let names) = FileSystem.directoryEntries(directory) else { return [] }
        return names
    }

    /// Removes `name` from the directory: a run with that fence loses it, and stops.
    func remove(_ name: String) {
        unlink(directory + "/" + name)
    }

    /// The deadline a run's fence holds now, if it has one.
    func deadline(of runID: String) -> Int64? {
        guard case .success(let text) = FileSystem.readTextFile(fence(of: runID).path, limit: 64) else { return nil }
        return Int64(text.split(separator: "\n").first ?? "")
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
        }, read: { deadline(of: $0) })
    }
}

import JobdConfig

/// The fence of a fleet run (`RunOn=one-node`): the file that holds the deadline of its node's
/// lease, which `jobd-cgexec` watches from outside jobd (Sources/CJobdExec/fence.c). When the
/// deadline passes, that supervisor stops the run (SIGTERM, SIGKILL after `TimeoutStopSec=`) and
/// leaves ``stoppedPath`` with the instant the run ended, so that jobd, even one that was stopped
/// meanwhile, ends the run as `lost` (`lease-lost`) at its true time.
package struct RunFence: Sendable, Hashable {
    /// The deadline file, which jobd's fleet thread rewrites at every renewal of the lease.
    package var path: String

    package init(path: String) {
        self.path = path
    }

    /// Where the supervisor says it stopped the run.
    package var stoppedPath: String { path + ".stopped" }

    /// The exec plan's fence for this one and the job's `TimeoutStopSec=`.
    func planned(stopTimeout: TimeSpan) -> ExecPlan.Fence {
        ExecPlan.Fence(path: path, stopTimeout: stopTimeout)
    }

    /// What the supervisor left when it stopped the run.
    struct Stopped {
        /// When the run ended (wall clock, microseconds since the epoch); `nil` if it did not say.
        var ended: Int64?
    }

    /// Whether the supervisor stopped the run, and when the run ended.
    func stopped() -> Stopped? {
        guard let text = try? String(contentsOfProcFile: stoppedPath) else { return nil }
        return Stopped(ended: Int64(text.split(separator: "\n").first ?? ""))
    }
}

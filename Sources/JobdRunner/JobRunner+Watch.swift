import JobdConfig
import JobdLogging
import Logging

extension JobRunner {
    /// Begins the watch beside the run's process: `RuntimeMaxSec=` on the driver's shared timer,
    /// an OOM kill in the cgroup of a run with a memory limit, and the registry's stop requests,
    /// the first of which is posted to the run (``RunWatch``); no task waits for any of them.
    func beginWatch(of run: RunInProgress) {
        let definition = run.definition
        let memoryLimited = [definition.resourceControl.memoryMax, definition.resourceControl.memoryHigh,
                             definition.resourceControl.memorySwapMax].contains { $0 != nil }
        let watch = run.watch
        var watches: [RunDriverWatch] = []
        if memoryLimited, let cgroup = run.cgroup {
            watches.append(driver.watchOOMKills(in: cgroup) { watch.stop(.oomKill) })
        }
        if !definition.runtimeMax.isInfinite {
            watches.append(driver.schedule(after: definition.runtimeMax) { watch.stop(.runtimeExceeded) })
        }
        watch.begin(watches)
    }

    /// `run.timeout` or `run.stop`, as systemd stops a service: SIGTERM (and SIGCONT, so that a
    /// stopped process sees it), SIGKILL once `grace` (`TimeoutStopSec=`) has passed.
    func logStop(_ reason: StopReason, of definition: JobDefinition, runID: UInt64, grace: TimeSpan, fields: [String: String]) {
        let after = grace == definition.stopTimeout ? "TimeoutStopSec=\(grace)" : "\(grace) (jobd's stop: StopTimeoutMaxSec=)"
        let message = switch reason {
        case .runtimeExceeded: "run \(runID) of \(definition.name) ran longer than RuntimeMaxSec=\(definition.runtimeMax)"
        case .replaced: "run \(runID) of \(definition.name) is replaced by a new run (Overlap=replace)"
        case .requested: "run \(runID) of \(definition.name) is stopped on request (jobctl stop)"
        case .shutdown: "run \(runID) of \(definition.name) is stopped: jobd is stopping"
        case .oomKill: "the OOM killer killed a process of run \(runID) of \(definition.name) in its cgroup: the run is stopped (as systemd's OOMPolicy=stop)"
        case .leaseLost: "run \(runID) of \(definition.name) is stopped: this node no longer holds its fleet lease"
        case .revoked: "run \(runID) of \(definition.name) is stopped: its user may no longer have jobs"
        }
        logger.event(reason == .runtimeExceeded ? .runTimeout : .runStop, level: reason == .shutdown ? .notice : .warning,
                     "\(message): SIGTERM to its \(tracking.name == "cgroup" ? "cgroup" : "process group"), SIGKILL after \(after)", fields)
    }
}

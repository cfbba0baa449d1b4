import JobdConfig
import JobdLogging
import Logging

extension JobRunner {
    private enum WatchEnd: Sendable {
        case stop(StopReason)
        /// One of the watches has nothing to say (no OOM watch to be had).
        case nothing
        /// The process was reaped.
        case ended
    }

    /// Watches one run beside its process until the process has been reaped (`ended` finishes
    /// then): returns the first reason to stop it, `RuntimeMaxSec=`, a stop request, or an OOM kill
    /// in the cgroup of a run with a memory limit; `nil` if none came.
    func watch(
        _ definition: JobDefinition, cgroup: RunCgroup?, requests: AsyncStream<StopReason>, until ended: AsyncStream<Void>
    ) async -> StopReason? {
        let runtimeMax = definition.runtimeMax
        let memoryLimited = [definition.resourceControl.memoryMax, definition.resourceControl.memoryHigh,
                             definition.resourceControl.memorySwapMax].contains { $0 != nil }
        let driver = self.driver
        return await withTaskGroup(of: WatchEnd.self) { group in
            if memoryLimited, let cgroup {
                group.addTask { await driver.oomKilled(in: cgroup) ? .stop(.oomKill) : .nothing }
            }
            if !runtimeMax.isInfinite {
                group.addTask {
                    do { try await driver.sleep(for: runtimeMax) } catch { return .nothing }
                    return .stop(.runtimeExceeded)
                }
            }
            group.addTask {
                for await request in requests { return .stop(request) }
                return .nothing
            }
            group.addTask {
                for await _ in ended {}
                return .ended
            }
            for await end in group {
                switch end {
                case .stop(let reason):
                    group.cancelAll()
                    return reason
                case .ended:
                    group.cancelAll()
                    return nil
                case .nothing:
                    continue
                }
            }
            return nil
        }
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

import Glibc
import JobdConfig
import JobdLogging
import Logging

extension JobRunner {
    /// Watches one run beside its process until the process has been reaped (the caller cancels
    /// it then): at `RuntimeMaxSec=`, a stop request, or an OOM kill in the cgroup of a run with a
    /// memory limit, it sends SIGTERM (and SIGCONT, so that a stopped process sees it) to the run's
    /// process group, and SIGKILL once `TimeoutStopSec=` has passed, as systemd stops a service.
    func watch(
        _ definition: JobDefinition, runID: UInt64, cgroup: RunCgroup?, fields runFields: [String: String],
        requests: AsyncStream<StopReason>, stopping: @Sendable (StopReason) -> Void
    ) async {
        let runtimeMax = definition.runtimeMax
        let memoryLimited = [definition.resourceControl.memoryMax, definition.resourceControl.memoryHigh,
                             definition.resourceControl.memorySwapMax].contains { $0 != nil }
        let oomWatch = memoryLimited ? cgroup.flatMap(OOMWatch.start) : nil
        let reason: StopReason? = await withTaskGroup(of: StopReason?.self) { group in
            if let oomWatch {
                group.addTask { await oomWatch.wait() ? .oomKill : nil }
            }
            if !runtimeMax.isInfinite {
                group.addTask {
                    do { try await Task.sleep(for: runtimeMax.duration) } catch { return nil }
                    return .runtimeExceeded
                }
            }
            group.addTask {
                for await request in requests { return request }
                return nil
            }
            for await reason in group {
                if let reason {
                    group.cancelAll()
                    return reason
                }
            }
            return nil
        }
        guard let reason, !Task.isCancelled else { return }
        stopping(reason)
        // The run's own fields (JOB, JOBD_RUN, JOBD_RUN_ID…) on every entry of the run, and why.
        let fields = runFields.merging([JobdField.reason: reason.rawValue]) { $1 }
        let grace = registry.bounded(definition.stopTimeout)
        let after = grace == definition.stopTimeout ? "TimeoutStopSec=\(grace)" : "\(grace) (jobd's stop: StopTimeoutMaxSec=)"
        let message = switch reason {
        case .runtimeExceeded: "run \(runID) of \(definition.name) ran longer than RuntimeMaxSec=\(runtimeMax)"
        case .replaced: "run \(runID) of \(definition.name) is replaced by a new run (Overlap=replace)"
        case .requested: "run \(runID) of \(definition.name) is stopped on request (jobctl stop)"
        case .shutdown: "run \(runID) of \(definition.name) is stopped: jobd is stopping"
        case .oomKill: "the OOM killer killed a process of run \(runID) of \(definition.name) in its cgroup: the run is stopped (as systemd's OOMPolicy=stop)"
        case .leaseLost: "run \(runID) of \(definition.name) is stopped: this node no longer holds its fleet lease"
        case .revoked: "run \(runID) of \(definition.name) is stopped: its user may no longer have jobs"
        }
        logger.event(reason == .runtimeExceeded ? .runTimeout : .runStop, level: reason == .shutdown ? .notice : .warning,
                     "\(message): SIGTERM to its \(tracking.name == "cgroup" ? "cgroup" : "process group"), SIGKILL after \(after)", fields)
        registry.terminate(runID: runID)
        guard !grace.isInfinite else { return }
        do { try await Task.sleep(for: grace.duration) } catch { return }
        logger.event(.runKill, level: .warning,
                     "run \(runID) of \(definition.name) still running \(grace) after SIGTERM: SIGKILL", fields)
        registry.kill(runID: runID)
    }
}

extension JobRunner {
    /// The processes a run left in its process group (or its cgroup, where it has one) when its
    /// main process ended: logged as `run.leftovers`, then, unless the job has `KillMode=process`,
    /// stopped as systemd stops what is left of a service: SIGTERM (and SIGCONT), SIGKILL once
    /// `TimeoutStopSec=` has passed (`cgroup.kill` for a cgroup). Returns how many there were.
    ///
    /// The kernel tells nobody when a process group empties, so this looks again every 10 ms up to
    /// 100 ms apart (at `/proc` for a group, at the cgroup's `cgroup.events` for a cgroup).
    func stopLeftovers(of definition: JobDefinition, group: pid_t, cgroup: RunCgroup?, fields: [String: String]) async -> Int {
        let count = cgroup.map { $0.members.count(where: ProcessGroup.isStaying) } ?? ProcessGroup.members(of: group)
        guard count > 0 else { return 0 }
        let fields = fields.merging([JobdField.leftovers: String(count)]) { $1 }
        guard definition.killMode == .controlGroup else {
            logger.event(.runLeftovers, level: .notice, "\(definition.name) left \(count) process(es) running (KillMode=process)", fields)
            return count
        }
        let grace = registry.bounded(definition.stopTimeout)
        let target = cgroup == nil ? "its process group" : "its cgroup"
        logger.event(.runLeftovers, level: .warning,
                     "\(definition.name) left \(count) process(es) behind: SIGTERM to \(target), SIGKILL after TimeoutStopSec=\(grace)",
                     fields)
        let isEmpty = { cgroup.map { !$0.isPopulated } ?? (ProcessGroup.members(of: group) == 0) }
        let send = { (signal: Int32) in
            if let cgroup { signal == SIGKILL ? cgroup.kill() : cgroup.signal(signal) } else { killpg(group, signal) }
        }
        send(SIGTERM)
        send(SIGCONT)
        if await Self.waitUntil(isEmpty, for: grace.duration) { return count }
        logger.event(.runKill, level: .warning,
                     "\(definition.name)'s leftovers still running \(grace) after SIGTERM: SIGKILL", fields)
        send(SIGKILL)
        _ = await Self.waitUntil(isEmpty, for: .seconds(5))
        return count
    }

    /// Whether `isEmpty` came true within `limit`.
    private static func waitUntil(_ isEmpty: () -> Bool, for limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        var pause = Duration.milliseconds(10)
        while !isEmpty() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: min(pause, deadline - ContinuousClock.now))
            pause = min(pause * 2, .milliseconds(100))
        }
        return true
    }
}

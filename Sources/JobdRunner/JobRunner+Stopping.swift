import Glibc
import JobdConfig
import JobdLogging
import Logging

extension JobRunner {
    /// Watches one run beside its process until the process has been reaped (the caller cancels
    /// it then): at `RuntimeMaxSec=` or a stop request it sends SIGTERM (and SIGCONT, so that a
    /// stopped process sees it) to the run's process group, and SIGKILL once `TimeoutStopSec=` has
    /// passed, as systemd stops a service.
    func watch(
        _ definition: JobDefinition, runID: UInt64, requests: AsyncStream<StopReason>,
        stopping: @Sendable (StopReason) -> Void
    ) async {
        let runtimeMax = definition.runtimeMax
        let reason: StopReason? = await withTaskGroup(of: StopReason?.self) { group in
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
        let fields = [JobdField.job: definition.name, JobdField.run: String(runID), JobdField.reason: reason.rawValue]
        let grace = definition.stopTimeout
        let message = switch reason {
        case .runtimeExceeded: "run \(runID) of \(definition.name) ran longer than RuntimeMaxSec=\(runtimeMax)"
        case .replaced: "run \(runID) of \(definition.name) is replaced by a new run (Overlap=replace)"
        case .requested: "run \(runID) of \(definition.name) is stopped on request (jobctl stop)"
        case .shutdown: "run \(runID) of \(definition.name) is stopped: jobd is stopping"
        }
        logger.event(reason == .runtimeExceeded ? .runTimeout : .runStop, level: reason == .shutdown ? .notice : .warning,
                     "\(message): SIGTERM to its process group, SIGKILL after TimeoutStopSec=\(grace)", fields)
        registry.terminate(runID: runID)
        guard !grace.isInfinite else { return }
        do { try await Task.sleep(for: grace.duration) } catch { return }
        logger.event(.runKill, level: .warning,
                     "run \(runID) of \(definition.name) still running \(grace) after SIGTERM: SIGKILL", fields)
        registry.kill(runID: runID)
    }
}

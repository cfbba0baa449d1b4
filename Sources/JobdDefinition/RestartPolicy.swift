import Glibc
package import JobdUnitFile

/// `Restart=`, `RestartSec=`, `RestartSteps=`, `RestartMaxDelaySec=` and `RestartLimit=`: whether a
/// failed run is tried again, how often, and after how long. The names and the growth of the delay
/// are systemd's (systemd.service(5), `RestartSteps=` as in systemd 254); `RestartLimit=` is jobd's
/// bound on the retries of one failed run, since a job, unlike a service, must not retry for ever.
package struct RestartPolicy: Sendable, Hashable {
    /// Which results are retried.
    package enum Condition: String, Sendable, Hashable, CaseIterable {
        /// Never (the default).
        case no
        /// Every failed result: `exit-code`, `signal`, `core-dump`, `timeout`, `oom-kill`, `start-failed`, `lost`.
        case onFailure = "on-failure"
        /// A run that did not exit by itself: `signal`, `core-dump`, `timeout`, `oom-kill`, and a fleet run `lost` with its node.
        case onAbnormal = "on-abnormal"
        /// A run killed by a signal: `signal`, `core-dump`.
        case onAbort = "on-abort"

        package func retries(_ result: RunResult) -> Bool {
            switch self {
            case .no: false
            case .onFailure: result.isFailure && result != .assert && result != .abandoned
            case .onAbnormal: [.signal, .coreDump, .timeout, .oomKill, .lost].contains(result)
            case .onAbort: [.signal, .coreDump].contains(result)
            }
        }
    }

    package var condition: Condition = .no
    /// `RestartSec=`: the delay before the first retry; systemd's default, 100 ms.
    package var delay: TimeSpan = TimeSpan(microseconds: 100_000)
    /// `RestartSteps=`: in how many retries the delay grows from `RestartSec=` to `RestartMaxDelaySec=`.
    package var steps: UInt64 = 0
    /// `RestartMaxDelaySec=`: the longest delay; infinity (the default) means the delay does not grow.
    package var maxDelay: TimeSpan = .infinity
    /// `RestartLimit=`: at most this many retries after a failed run; 3 by default.
    package var limit: UInt64 = 3
    /// `RestartPreventExitStatus=`: exit statuses and signals after which a run is never retried,
    /// whatever `Restart=` says, as systemd reads the key (the syntax of `SuccessExitStatus=`).
    package var preventExitStatus = SuccessExitStatus()

    package static let defaultLimit: UInt64 = 3

    package init() {}

    /// Whether `RestartPreventExitStatus=` forbids retrying a run that ended as `EXIT_CODE=` and
    /// `EXIT_STATUS=` say: its exit status (203 for one that could not start, as systemd's
    /// `EXIT_EXEC`), or the signal that killed it, as systemd tests its main process's.
    package func prevents(exitCode: String, exitStatus: String) -> Bool {
        switch exitCode {
        case "killed", "dumped": SignalName.number(named: exitStatus).map { preventExitStatus.signals.contains($0) } ?? false
        default: Int32(exitStatus).map { preventExitStatus.statuses.contains($0) } ?? false
        }
    }

    /// The delay before retry number `retry` (1 for the first): `RestartSec=` for the first, then
    /// growing exponentially so that the `RestartSteps=`-th retry after the first waits
    /// `RestartMaxDelaySec=`, never longer, as systemd computes it.
    package func delay(beforeRetry retry: UInt64) -> TimeSpan {
        let done = retry > 0 ? retry - 1 : 0
        guard steps > 0, !maxDelay.isInfinite, maxDelay > delay, done > 0 else { return delay }
        guard done < steps else { return maxDelay }
        let base = Double(max(delay.microseconds, 1))
        let grown = base * pow(Double(maxDelay.microseconds) / base, Double(done) / Double(steps))
        return TimeSpan(microseconds: min(maxDelay.microseconds, UInt64(grown.rounded())))
    }
}

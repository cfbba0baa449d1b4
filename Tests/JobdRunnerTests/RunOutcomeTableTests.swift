import Glibc
import JobdConfig
@testable import JobdRunner
import JobdTestKit
import Testing

/// Every way a run can end, against every reason jobd had to stop it: the result each gets.
struct RunOutcomeTableTests {
    static let success = SuccessExitStatus(statuses: [3], signals: [SIGHUP])

    /// (how it ended, why jobd stopped it, `-` before the command, expected result)
    static let table: [(RunTermination, StopReason?, Bool, RunResult)] = [
        (.exited(0), nil, false, .success),
        (.exited(1), nil, false, .exitCode),
        (.exited(1), nil, true, .success),
        (.exited(3), nil, false, .success),
        (.killed(signal: SIGTERM), nil, false, .signal),
        (.killed(signal: SIGTERM), nil, true, .signal),
        (.killed(signal: SIGHUP), nil, false, .success),
        (.dumped(signal: SIGSEGV), nil, false, .coreDump),
        (.dumped(signal: SIGSEGV), nil, true, .coreDump),
        (.failedToStart("no such file"), nil, false, .startFailed),
        (.failedToStart("no such file"), nil, true, .startFailed),
        (.exited(0), .runtimeExceeded, false, .timeout),
        (.killed(signal: SIGTERM), .runtimeExceeded, false, .timeout),
        (.killed(signal: SIGKILL), .runtimeExceeded, true, .timeout),
        (.exited(0), .replaced, false, .stopped),
        (.killed(signal: SIGTERM), .replaced, false, .stopped),
        (.killed(signal: SIGKILL), .requested, false, .stopped),
        (.exited(1), .requested, false, .stopped),
        (.killed(signal: SIGTERM), .shutdown, false, .stopped),
        (.dumped(signal: SIGABRT), .shutdown, false, .stopped),
        (.failedToStart("gone"), .shutdown, false, .startFailed),
        (.failedToStart("gone"), .runtimeExceeded, false, .startFailed),
    ]

    @Test(arguments: table)
    func result(_ termination: RunTermination, _ stop: StopReason?, _ ignoresFailure: Bool, _ expected: RunResult) {
        #expect(RunOutcome.result(of: termination, stopReason: stop, ignoresFailure: ignoresFailure, success: Self.success) == expected)
    }
}

/// The registry of runs in flight, without processes: who is asked to stop, and when.
struct RunRegistryTests {
    /// The first stop request a run's watcher receives, if one is waiting.
    /// What a run registered in `registry` is asked: each stop request, in order.
    static func register(_ registry: RunRegistry, runID: UInt64, job: String) -> Guarded<[StopReason]> {
        let asked = Guarded<[StopReason]>([])
        registry.add(runID: runID, job: job) { reason in asked.withLock { $0.append(reason) } }
        return asked
    }

    @Test func stoppingAJobAsksItsRunsOnly() {
        let registry = RunRegistry()
        let a1 = Self.register(registry, runID: 1, job: "a")
        let a2 = Self.register(registry, runID: 2, job: "a")
        let b = Self.register(registry, runID: 3, job: "b")
        #expect(registry.count == 0, "runs without a process are not counted")
        #expect(registry.stop(job: "a", reason: .requested) == 2)
        #expect(a1.withLock { $0 } == [.requested])
        #expect(a2.withLock { $0 } == [.requested])
        registry.remove(runID: 3)
        #expect(registry.stop(job: "b", reason: .requested) == 0)
        #expect(b.withLock { $0 }.isEmpty, "b heard nothing before its run ended, nor after")
    }

    @Test func stopAllReachesRunsThatRegisterAfterIt() {
        let registry = RunRegistry()
        let before = Self.register(registry, runID: 1, job: "a")
        #expect(registry.stopAll(reason: .shutdown) == 1)
        let after = Self.register(registry, runID: 2, job: "b")
        #expect(before.withLock { $0 } == [.shutdown])
        #expect(after.withLock { $0 } == [.shutdown])
    }

    /// Issue 37: once jobd's stop bounds it, no run's grace outlasts the bound, not even `infinity`.
    @Test func stopAllWithinBoundsEveryGrace() {
        let registry = RunRegistry()
        #expect(registry.bounded(.infinity) == .infinity)
        let stop = ContinuousClock.now
        registry.stopAll(reason: .shutdown, within: .seconds(2), now: stop)
        #expect(registry.bounded(.infinity, now: stop) == .seconds(2))
        #expect(registry.bounded(.infinity, now: stop + .milliseconds(1_500)) == TimeSpan(microseconds: 500_000))
        #expect(registry.bounded(.infinity, now: stop + .seconds(3)) == .zero, "past the deadline, no grace is left")
        #expect(registry.bounded(TimeSpan(microseconds: 100_000), now: stop) == TimeSpan(microseconds: 100_000))
    }
}

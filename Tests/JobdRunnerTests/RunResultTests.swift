import Glibc
import JobdConfig
@testable import JobdRunner
import Testing

/// How a run's end becomes its result, in systemd's words (`JOBD_RESULT=`).
struct RunResultTests {
    static let success = SuccessExitStatus(statuses: [3], signals: [SIGHUP])

    @Test(arguments: [
        (RunTermination.exited(0), SuccessExitStatus(), RunResult.success),
        (.exited(3), SuccessExitStatus(), .exitCode),
        (.exited(3), success, .success),
        (.exited(4), success, .exitCode),
        (.killed(signal: SIGHUP), success, .success),
        (.killed(signal: SIGHUP), SuccessExitStatus(), .signal),
        (.killed(signal: SIGTERM), success, .signal),
        (.dumped(signal: SIGHUP), success, .success),
        (.failedToStart("no such file"), success, .startFailed),
    ])
    func successExitStatusCountsAsSuccess(termination: RunTermination, success: SuccessExitStatus, result: RunResult) {
        #expect(RunOutcome.result(of: termination, stopReason: nil, ignoresFailure: false, success: success) == result)
    }

    @Test func aRunJobdStoppedIsNeverASuccessWhateverItsStatus() {
        #expect(RunOutcome.result(of: .exited(3), stopReason: .runtimeExceeded, ignoresFailure: false, success: Self.success) == .timeout)
    }

    @Test(arguments: [
        (RunTermination.killed(signal: SIGKILL), StopReason?.none, RunResult.oomKill),
        (.exited(137), nil, .oomKill),
        (.exited(0), nil, .oomKill),
        (.killed(signal: SIGKILL), .runtimeExceeded, .timeout),
        (.killed(signal: SIGTERM), .oomKill, .oomKill),
        (.killed(signal: SIGTERM), .requested, .stopped),
        (.failedToStart("no such file"), nil, .startFailed),
    ])
    func aRunWhoseProcessTheOOMKillerKilledEndsOOMKillAsSystemdsService(termination: RunTermination, stop: StopReason?, result: RunResult) {
        // The killed process may be a child: the shell of `head -c 200M /dev/zero | tail` exits 137.
        #expect(RunOutcome.result(of: termination, stopReason: stop, ignoresFailure: true, success: Self.success, oomKilled: true) == result)
        #expect(RunResult.oomKill.isFailure && RunResult.oomKill.rawValue == "oom-kill")
    }
}

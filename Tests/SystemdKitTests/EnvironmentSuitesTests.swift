import Foundation
import JobdTestKit
import Testing

/// Runs the suites that set environment variables (``NotifierTests``, ``WatchdogTests``) in a child
/// process of this test binary, where `setenv` cannot race another suite's process spawns.
@Suite struct EnvironmentSuitesTests {
    @Test(.enabled(if: !EnvironmentChild.isChild))
    func notifierAndWatchdogSuitesPassInAProcessOfTheirOwn() throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WATCHDOG_") && $0.key != "NOTIFY_SOCKET" }
        environment[EnvironmentChild.variable] = "1"
        let child = try CapturedProcess.run(
            executable, ["--testing-library", "swift-testing", "--filter", "NotifierTests|WatchdogTests"], environment: environment)
        let output = child.standardOutput + child.standardError
        #expect(child.exitedNormally && child.status == 0, "\(output)")
        // They ran, all of them: a filter gone wrong would pass with none.
        let ran = output.firstMatch(of: #/Test run with (\d+) tests?/#).flatMap { Int($0.output.1) } ?? 0
        #expect(ran >= 11, "\(ran) tests ran in the child:\n\(output)")
    }
}

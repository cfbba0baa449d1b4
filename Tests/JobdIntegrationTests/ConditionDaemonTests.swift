import Foundation
import JobdTestKit
import Testing

/// `Condition…=` and `Assert…=` in the real jobd: a condition that does not hold skips the run
/// (`run.skip`, `JOBD_REASON=condition`, the condition named in the log); an assertion that does
/// not hold fails it with result `assert`, its command never run.
@Suite(.serialized) struct ConditionDaemonTests {
    @Test func anUnmetConditionSkipsAndAFailedAssertionFails() throws {
        let directory = NSTemporaryDirectory() + "jobd-condition-" + UUID().uuidString
        let jobd = try FailureHandlingTests.Daemon(jobs: [
            "gated": "[Job]\nConditionPathExists=\(directory)\nExecStart=/bin/echo gated ran\n",
            "asserted": "[Job]\nAssertPathIsDirectory=\(directory)\nExecStart=/bin/echo asserted ran\n",
        ])
        let before = jobd.process.lines.count
        _ = try jobd.jobctl(["run", "gated"])
        let skip = try jobd.process.waitForEvent("run.skip", fields: ["JOB": "gated", "JOBD_REASON": "condition"], from: before)
        #expect(jobd.process.lines[before..<skip].contains { $0.contains("ConditionPathExists=\(directory) does not hold") })
        #expect(!jobd.process.events("run.start").contains { $0.field("JOB") == "gated" })

        let (status, output) = try jobd.jobctl(["run", "asserted", "--wait"])
        #expect(status != 0, "\(output)")
        let exit = try jobd.process.waitForEvent("run.exit", fields: ["JOB": "asserted", "JOBD_RESULT": "assert"])
        #expect(LogLine(jobd.process.lines[exit]).message.contains("AssertPathIsDirectory=\(directory) does not hold"))
        #expect(!jobd.process.events("run.output").contains { $0.field("JOB") == "asserted" }, "the command never ran")

        // Once the path is there, both run.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try jobd.jobctl(["run", "gated", "--wait"]).0 == 0)
        #expect(try jobd.jobctl(["run", "asserted", "--wait"]).0 == 0)
        #expect(jobd.process.events("run.output").map(\.message).filter { $0.hasSuffix(" ran") }.sorted() == ["asserted ran", "gated ran"])
    }
}

import ArgumentParser
import Foundation
@testable import JobctlCommands
import JobdControl
import Testing

/// `jobctl plan --config-dir`: the job files planned as a jobd started now would run them, without a daemon.
@Suite struct PlanOfflineTests {
    func directory(_ jobs: [String: String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jobd-plan-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path + "/jobs.d", withIntermediateDirectories: true)
        for (name, text) in jobs { try text.write(toFile: "\(path)/jobs.d/\(name).job", atomically: true, encoding: .utf8) }
        return path
    }

    @Test func theJobFilesArePlannedFromNowAndABrokenOneIsLeftOut() throws {
        let path = try directory([
            "newyear": "[Job]\nOnCalendar=2099-01-01 00:00:00 UTC\nExecStart=/bin/true\nRestart=on-failure\nRestartLimit=1\n",
            "broken": "[Job]\nOnCalender=daily\nExecStart=/bin/true\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        var request = ControlRequest(command: .plan)
        request.limit = 5
        let elapses = try Jobctl.Plan.offline(path, request).elapses
        #expect(elapses.map(\.job) == ["newyear"], "\(elapses)")
        let late = try #require(elapses.first).earliestUSec - 4_070_908_800_000_000
        #expect((0..<1_000).contains(late), "the slot, rounded up to AccuracySec=1ms")
        #expect(elapses.first?.retries == "on-failure: 1 retry at +100ms after each failed attempt")
        request.jobs = ["nosuch"]
        #expect(throws: ExitCode.self) { try Jobctl.Plan.offline(path, request) }
    }
}

import Foundation
import JobdConfig
import JobdLogging
import JobdScheduler
import JobdTestKit
import JobdTimers
import Logging
import SystemdKit
import Testing

/// A leak planted by the test, seen by the live detector and by `jobctl audit` over a real journal;
/// and the same scenario without the plant, which the audit passes. The `-many` scenarios have 100
/// more jobs, whose start, reload and stop log their owners compactly (`owners.init`, …), as jobd
/// does: the leaked owner is still named by its job, and its late release still found.
///
/// The scenario runs in a child (this test binary under `scripts/with-journald`, selected with
/// `--filter`): the scheduler and its detector log through the journal handler into a private
/// journald, as jobd does. The parent then runs the built `jobctl audit --directory` on that journal.
@Suite(.serialized) struct LeakAuditTests {
    static let childVariable = "JOBD_TEST_LEAK_SCENARIO"
    static let scenario = ProcessInfo.processInfo.environment[childVariable]

    @Test(.enabled(if: scenario != nil, "runs only as the child of the leak audit tests"))
    func childRunsTheScenario() throws {
        let scenario = Self.scenario ?? ""
        let plant = scenario.hasPrefix("plant"), late = scenario.hasPrefix("late")
        var logger = Logger(label: "jobd") { JournalLogHandler(label: $0, identifier: "jobd") }
        logger.logLevel = .debug
        logger[metadataKey: JobdField.instance] = .string(try ID128.random())
        let start = MonotonicInstant.now()
        let events = OwnerEventBatch(logger: logger)
        let scheduler = Scheduler(
            queue: .manual(observer: TimerEventLog(logger: logger, events: events)), daemonStart: start, logger: logger,
            events: events) { _ in }
        let detector = LeakDetector(grace: .milliseconds(100), queue: nil, logger: logger) {}
        scheduler.leakDetector = detector
        // A deliberate extra reference: never released (a leak for the rest of the process), or late.
        var held: Unmanaged<JobOwner>?
        if plant || late {
            scheduler.ownerCreated = { owner in if owner.name == "leaky" { held = Unmanaged.passRetained(owner) } }
        }
        func job(_ name: String) throws -> JobDefinition {
            try JobFileReader.read(name: name, path: "/etc/jobd/jobs.d/\(name).job",
                                   text: "[Job]\nOnUnitActiveSec=1h\nExecStart=/bin/true\n").get()
        }
        let others = scenario.hasSuffix("-many") ? (0..<100).map { "job\($0)" } : ["fine"]
        scheduler.load(try (["leaky"] + others).map(job))
        // The reload removes leaky and half of the others.
        scheduler.load(try others.prefix(max(1, others.count / 2)).map(job))
        detector.check(now: .now() + .seconds(1))
        if late {
            held?.release()
            held = nil
            detector.check(now: .now() + .seconds(2))
        }
        scheduler.shutdown()
        #expect(detector.leaked == (plant ? 1 : 0))
    }

    func audit(scenario: String) throws -> (Int32, String) {
        try PrivateJournal.requireAvailable()
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let run = try PrivateJournal.run(
            executable, arguments: ["--testing-library", "swift-testing", "--filter", "childRunsTheScenario"],
            environment: [Self.childVariable: scenario])
        defer { run.removeDirectory() }
        #expect(run.exitStatus == 0, "the scenario failed:\n\(run.standardOutput)\n\(run.standardError)")
        let audit = try DaemonProcess(product: "jobctl", arguments: ["audit", "--directory", run.journalDirectory])
        let status = try audit.waitForExit()
        return (status, audit.lines.joined(separator: "\n"))
    }

    @Test func plantedLeakMakesTheAuditFailAndNameTheJob() throws {
        let (status, output) = try audit(scenario: "plant")
        #expect(status == 1, "\(output)")
        #expect(output.contains("LEAK: job leaky owner"), "\(output)")
    }

    @Test func plantedLeakAmongManyJobsLoggedCompactlyIsNamedByItsJob() throws {
        let (status, output) = try audit(scenario: "plant-many")
        #expect(status == 1, "\(output)")
        #expect(output.contains("LEAK: job leaky owner"), "\(output)")
        #expect(output.contains("101 created"), "\(output)")
    }

    @Test func lateReleaseAmongManyJobsLoggedCompactlyIsFound() throws {
        let (status, output) = try audit(scenario: "late-many")
        #expect(status == 1, "\(output)")
        #expect(output.contains("LATE-RELEASE: job leaky owner"), "\(output)")
    }

    @Test func manyJobsLoggedCompactlyPassTheAudit() throws {
        let (status, output) = try audit(scenario: "clean-many")
        #expect(status == 0, "\(output)")
        #expect(!output.contains("LEAK") && output.contains("101 created"), "\(output)")
    }

    @Test func theSameScenarioWithoutThePlantPassesTheAudit() throws {
        let (status, output) = try audit(scenario: "clean")
        #expect(status == 0, "\(output)")
        #expect(!output.contains("LEAK"))
    }
}

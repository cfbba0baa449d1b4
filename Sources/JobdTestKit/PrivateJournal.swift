import Foundation
package import SystemdKit
package import Testing

/// Runs a command against a real, private systemd-journald (`scripts/with-journald`) and reads what
/// it logged back with ``SystemdKit/JournalReader``.
///
/// The harness needs root (it makes mount and PID namespaces) and `unshare`. Tests call
/// ``requireAvailable()`` first: without them it cancels the test with a loud message, or, when
/// `CI=true`, fails it, because CI must never skip silently.
///
/// ```swift
/// try PrivateJournal.requireAvailable()
/// let run = try PrivateJournal.run("/usr/bin/systemd-cat", arguments: ["-t", "probe", "echo", "hi"])
/// defer { run.removeDirectory() }
/// #expect(run.entries(where: "SYSLOG_IDENTIFIER", is: "probe").first?.message == "hi")
/// ```
package struct PrivateJournal {
    /// What one command did under the harness.
    package struct Run: Sendable {
        /// The command's exit status (125 when the harness itself failed; see ``standardError``).
        package let exitStatus: Int32
        package let standardOutput: String
        package let standardError: String
        /// Every entry of the private journal, oldest first (journald's own start and stop entries included).
        package let entries: [JournalEntry]
        /// The temporary directory holding everything of this run.
        package let directory: String
        /// The journal directory inside ``directory``: pass it to `journalctl --directory` or
        /// ``SystemdKit/JournalReader/init(directory:)`` for queries of your own.
        package var journalDirectory: String { directory + "/journal" }

        /// The entries whose `field` is `value`.
        package func entries(where field: String, is value: String) -> [JournalEntry] {
            entries.filter { $0[field] == value }
        }

        /// Deletes ``directory``.
        package func removeDirectory() { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// What went wrong starting the harness.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// `scripts/with-journald` of this package, found from this file's path, so it works from any
    /// working directory.
    package static let scriptPath: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // PrivateJournal.swift, JobdTestKit, Sources
        return url.appendingPathComponent("scripts/with-journald").path
    }()

    /// Why the harness cannot run here, or `nil` when it can.
    package static func unavailableReason() -> String? {
        if geteuid() != 0 { return "not root (the harness makes mount and PID namespaces)" }
        let unshare = ["/usr/bin/unshare", "/bin/unshare"].contains { FileManager.default.isExecutableFile(atPath: $0) }
        if !unshare { return "unshare (util-linux) is not installed" }
        if !FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd-journald") {
            return "/lib/systemd/systemd-journald is not installed (apt-get install systemd)"
        }
        if !FileManager.default.isExecutableFile(atPath: scriptPath) { return "\(scriptPath) is missing or not executable" }
        return nil
    }

    /// Returns when the harness can run. Otherwise cancels the current test with a loud message on
    /// stderr, or, when `CI=true`, throws, so the test fails.
    package static func requireAvailable(sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let reason = unavailableReason() else { return }
        try Requirement.unmet("PRIVATE JOURNAL TEST NOT RUN: \(reason)", sourceLocation: sourceLocation)
    }

    /// Runs `executable` with `arguments` under `scripts/with-journald` in a new temporary directory,
    /// waits for it, and reads the private journal back.
    /// - Parameter environment: the command's whole environment (nothing is inherited), plus `PATH`
    ///   from this process when it has none.
    /// Runs this test binary again under the harness, only the tests `filter` selects: a scenario
    /// test that `environment` enables, which then logs to the private journal.
    package static func runScenario(_ filter: String, environment: [String: String]) throws -> Run {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var environment = environment
        if environment["PATH"] == nil { environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin" }
        return try run(executable, arguments: ["--testing-library", "swift-testing", "--filter", filter], environment: environment)
    }

    /// Runs the scenario test `name` (a test function enabled only where `variable` is set) under
    /// the harness, and expects it to have passed; a harness that cannot run here is
    /// ``requireAvailable(sourceLocation:)``'s to report. The caller removes the run's directory.
    package static func expectScenarioPasses(
        _ name: String, enabledBy variable: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Run {
        try requireAvailable(sourceLocation: sourceLocation)
        let run = try runScenario(name, environment: [variable: "1"])
        let output = run.standardOutput + run.standardError
        #expect(run.exitStatus == 0 && output.contains("Test \(name)() passed"), "\(output)", sourceLocation: sourceLocation)
        return run
    }

    package static func run(
        _ executable: String, arguments: [String] = [], environment: [String: String] = [:]
    ) throws -> Run {
        let temporary = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        var template = Array((temporary + "jobd-journal-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed: errno \(errno)") }
        let directory = String(cString: made)
        do {
            return try run(executable, arguments: arguments, environment: environment, in: directory)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    private static func run(
        _ executable: String, arguments: [String], environment: [String: String], in directory: String
    ) throws -> Run {
        var childEnvironment = environment
        if childEnvironment["PATH"] == nil {
            childEnvironment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"
        }
        let journalDirectory = directory + "/journal"
        let process = try CapturedProcess.run(
            scriptPath, [journalDirectory, "--", executable] + arguments, environment: childEnvironment
        )
        guard process.exitedNormally else {
            throw Failure(description: "with-journald died from signal \(process.status): \(process.standardError)")
        }
        return Run(
            exitStatus: process.status, standardOutput: process.standardOutput, standardError: process.standardError,
            entries: try JournalReader(directory: journalDirectory).readAll(), directory: directory
        )
    }
}

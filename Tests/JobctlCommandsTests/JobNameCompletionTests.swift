import Foundation
import JobdTestKit
import Testing

/// The bash completion jobctl generates, sourced in a real bash and run as bash runs it on <TAB>
/// (COMP_WORDS, COMP_CWORD, the completion function): job names come from the running daemon, or
/// from the configuration directory when no daemon answers.
@Suite struct JobNameCompletionTests {
    /// What bash offers for `jobctl WORDS...` with the cursor at the end of the last word.
    func complete(_ words: [String], environment: [String: String]) throws -> [String] {
        let (offered, status, standardError) = try BashCompletion.complete(words, environment: environment)
        #expect(status == 0, "\(standardError)")
        return offered
    }

    @Test func completesJobNamesFromTheConfigurationDirectory() throws {
        let config = try TemporaryConfiguration(jobs: ["backup": "", "bakery": "", "clean": ""])
        let runtime = NSTemporaryDirectory() + "jobctl-no-daemon-" + UUID().uuidString  // no jobd.sock there
        let environment = ["JOBCTL_CONFIG_DIR": config.path, "RUNTIME_DIRECTORY": runtime]
        #expect(try complete(["status", "ba"], environment: environment) == ["backup", "bakery"])
        for command in ["run", "logs"] {
            #expect(try complete([command, ""], environment: environment) == ["backup", "bakery", "clean"], "\(command)")
        }
        #expect(try complete(["status", "x"], environment: environment) == [])
    }

    @Test func completesTheRunningDaemonsJobs() throws {
        let job = "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n"
        let running = try TemporaryConfiguration(jobs: ["nightly": job, "hourly": job])
        let elsewhere = try TemporaryConfiguration(jobs: ["notloaded": job])
        let runtime = NSTemporaryDirectory() + "jobctl-completion-run-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        var daemonEnvironment = ProcessInfo.processInfo.environment
        daemonEnvironment["RUNTIME_DIRECTORY"] = runtime
        let daemon = try DaemonProcess(arguments: ["--config-dir", running.path], environment: daemonEnvironment)
        try daemon.waitForEvent("daemon.ready")
        let environment = ["JOBCTL_CONFIG_DIR": elsewhere.path, "RUNTIME_DIRECTORY": runtime]
        #expect(try complete(["status", ""], environment: environment) == ["hourly", "nightly"])
        #expect(try complete(["status", "--runtime-dir", runtime, "n"], environment: ["JOBCTL_CONFIG_DIR": elsewhere.path]) == ["nightly"])
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}

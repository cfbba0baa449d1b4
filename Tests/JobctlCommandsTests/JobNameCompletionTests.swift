import Foundation
import JobdTestKit
import Testing

/// The bash completion jobctl generates, sourced in a real bash and run as bash runs it on <TAB>
/// (COMP_WORDS, COMP_CWORD, the completion function): job names come from the running daemon, or
/// from the configuration directory when no daemon answers.
@Suite struct JobNameCompletionTests {
    let jobctl = DaemonProcess.productsDirectory + "/jobctl"

    /// What bash offers for `jobctl WORDS...` with the cursor at the end of the last word.
    func complete(_ words: [String], environment: [String: String]) throws -> [String] {
        let script = try CapturedProcess.run(jobctl, ["--generate-completion-script", "bash"])
        #expect(script.status == 0)
        let directory = NSTemporaryDirectory() + "jobctl-completion-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try script.standardOutput.write(toFile: directory + "/jobctl.bash", atomically: true, encoding: .utf8)
        let quoted = ([jobctl] + words).map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source \(directory)/jobctl.bash
            complete -p jobctl | grep -q -- '-F _jobctl' || { echo 'no completion registered' >&2; exit 3; }
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count)
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            _jobctl jobctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let bash = try CapturedProcess.run("/bin/bash", ["--norc", "--noprofile", "-c", program], environment: env)
        #expect(bash.status == 0, "\(bash.standardError)")
        return bash.standardOutput.split(separator: "\n").map(String.init)
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

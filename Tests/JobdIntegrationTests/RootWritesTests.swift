import Foundation
import JobdTestKit
import Testing

/// Files jobd writes as root (issue 20 item 10): never through a planted link, only in directories
/// of its own; and `jobctl reload` signals only the jobd that listens on the socket, with a deadline.
@Suite(.serialized) struct RootWritesTests {
    static let everySecond = "[Job]\nOnCalendar=*-*-* *:*:*\nPersistent=yes\nExecStart=/bin/true\n"

    @Test func plantedLinksAtTheOldTemporaryNamesAreNotFollowed() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": Self.everySecond])
        let state = config.path + "/state"
        try FileManager.default.createDirectory(atPath: state + "/timestamps", withIntermediateDirectories: true)
        let target = config.path + "/precious"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: target))
        for planted in ["boot-id.tmp", "timestamps/tick.tmp"] {
            #expect(symlink(target, state + "/" + planted) == 0)
        }
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--state-dir", state])
        try daemon.waitForEvent("daemon.ready")
        let first = try daemon.waitForEvent("run.start", fields: ["JOB": "tick"])
        try daemon.waitForEvent("run.start", fields: ["JOB": "tick"], from: first + 1)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)

        #expect(FileManager.default.contents(atPath: target) == Data("precious\n".utf8), "the link's target is untouched")
        for (file, planted) in [("boot-id", "boot-id.tmp"), ("timestamps/tick", "timestamps/tick.tmp")] {
            var status = stat()
            #expect(lstat(state + "/" + file, &status) == 0 && status.st_mode & S_IFMT == S_IFREG, "\(file) is a regular file")
            #expect(lstat(state + "/" + planted, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK, "\(planted) stays a link, unused")
        }
        let stamp = try String(contentsOfFile: state + "/timestamps/tick", encoding: .utf8)
        #expect(Int64(stamp.trimmingCharacters(in: .whitespacesAndNewlines)) != nil, "\(stamp)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: state + "/timestamps").filter { ($0.hasPrefix("tick.") || $0.hasPrefix(".tick.")) && $0 != "tick.tmp" }
        #expect(leftovers.isEmpty, "no temporary file left: \(leftovers)")
    }

    @Test func aStateDirectoryOthersCanWriteIsNotUsed() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": Self.everySecond])
        let state = config.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        #expect(chmod(state, 0o777) == 0)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--state-dir", state])
        try daemon.waitForEvent("daemon.ready")
        #expect(daemon.lines.contains { $0.contains("not using the state directory") && $0.contains("can be written by other users") })
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: state + "/boot-id"))
    }

    @Test func reloadWithTheWrongPidSignalsNobody() throws {
        let config = try TemporaryConfiguration(jobs: ["hourly": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n"])
        let runtime = config.path + "/run"
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime])
        try daemon.waitForEvent("daemon.ready")
        // An unrelated process: SIGHUP would end it.
        let bystander = try DaemonProcess(absolutePath: "/bin/sleep", arguments: ["60"])
        let reload = try DaemonProcess(product: "jobctl", arguments: ["reload", "--pid", String(bystander.pid), "--runtime-dir", runtime])
        #expect(try reload.waitForExit(timeout: .seconds(10)) == 2)
        #expect(reload.lines.contains("jobctl: the jobd on \(runtime)/jobd.sock is pid \(daemon.pid), not \(bystander.pid); nothing signalled"))
        #expect(bystander.process.isRunning, "the bystander was not signalled")
        #expect(daemon.events("reload.start").isEmpty && daemon.events("reload.done").isEmpty)

        let right = try DaemonProcess(product: "jobctl", arguments: ["reload", "--pid", String(daemon.pid), "--runtime-dir", runtime])
        #expect(try right.waitForExit() == 0, "\(right.lines)")
        bystander.signal(SIGKILL)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// jobctl reload's `--timeout 1` against a main loop stalled for two minutes: it gives up, saying
    /// so, while jobd is still stalled (its reload has not even started), not at the stall's end.
    @Test func reloadGivesUpAtItsDeadline() throws {
        let config = try TemporaryConfiguration(jobs: ["hourly": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n"])
        let runtime = config.path + "/run"
        var environment = ProcessInfo.processInfo.environment.filter { !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"].contains($0.key) }
        environment["JOBD_FAULT_STALL_SECONDS"] = "120"
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime], environment: environment)
        defer {
            // The loop is stalled: SIGTERM would be heard only at its end.
            daemon.signal(SIGKILL)
            _ = try? daemon.waitForExit()
        }
        try daemon.waitForEvent("daemon.ready")
        daemon.signal(SIGUSR2)
        try daemon.waitForLine("the stall") { $0.contains("fault injection: the main loop stalls") }
        let reload = try DaemonProcess(product: "jobctl", arguments: ["reload", "--timeout", "1", "--runtime-dir", runtime])
        #expect(try reload.waitForExit(timeout: .seconds(60)) == 2)
        #expect(reload.lines.contains { $0.hasPrefix("jobctl: jobd (pid \(daemon.pid)) did not") && $0.hasSuffix("within 1 s") }, "\(reload.lines)")
        #expect(daemon.events("reload.start").isEmpty, "jobctl gave up while the loop was stalled, before the reload began")
    }
}

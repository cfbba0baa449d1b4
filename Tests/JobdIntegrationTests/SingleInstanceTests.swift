import Foundation
import JobdTestKit
import Testing

/// One jobd per runtime directory (issue 14 item 5): a second jobd on the same directory finds the
/// lock on `jobd.pid` held, says who holds it, exits 1 and touches nothing; the first keeps its
/// socket and answers `jobctl status`.
@Suite(.serialized) struct SingleInstanceTests {
    static let hourly = "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n"

    /// The identity and contents of a file, to show it was not touched.
    static func snapshot(_ path: String) -> (dev: UInt, ino: UInt, mtime: Int, contents: Data?) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return (0, 0, 0, nil) }
        return (UInt(status.st_dev), UInt(status.st_ino), status.st_mtim.tv_sec * 1_000_000_000 + status.st_mtim.tv_nsec,
                FileManager.default.contents(atPath: path))
    }

    @Test func aSecondJobdExitsNamingTheFirstAndTouchesNothing() throws {
        let config = try TemporaryConfiguration(jobs: ["hourly": Self.hourly])
        let runtime = config.path + "/run"
        let first = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime])
        try first.waitForEvent("daemon.ready")
        let socketBefore = Self.snapshot(runtime + "/jobd.sock")
        let pidBefore = Self.snapshot(runtime + "/jobd.pid")
        #expect(pidBefore.contents == Data("\(first.pid)\n".utf8))

        let second = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime])
        #expect(try second.waitForExit(timeout: .seconds(10)) == 1)
        #expect(second.lines == ["jobd: already running as pid \(first.pid) (lock \(runtime)/jobd.pid)"])

        let socketAfter = Self.snapshot(runtime + "/jobd.sock")
        let pidAfter = Self.snapshot(runtime + "/jobd.pid")
        #expect(socketAfter.ino == socketBefore.ino && socketAfter.dev == socketBefore.dev && socketAfter.mtime == socketBefore.mtime)
        #expect(pidAfter.ino == pidBefore.ino && pidAfter.mtime == pidBefore.mtime && pidAfter.contents == pidBefore.contents)

        let status = try DaemonProcess(product: "jobctl", arguments: ["status", "--json", "--runtime-dir", runtime])
        #expect(try status.waitForExit() == 0)
        #expect(status.lines.joined().contains("\"pid\" : \(first.pid),"), "\(status.lines)")

        first.signal(SIGTERM)
        #expect(try first.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: runtime + "/jobd.pid"), "the first removes its pid file at exit")
        // With the first gone, a new jobd takes over at once.
        let third = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime])
        try third.waitForEvent("daemon.ready")
        #expect(FileManager.default.contents(atPath: runtime + "/jobd.pid") == Data("\(third.pid)\n".utf8))
        third.signal(SIGTERM)
        #expect(try third.waitForExit() == 0)
    }

    @Test func aPlantedLinkAtThePidFileIsNotFollowed() throws {
        let config = try TemporaryConfiguration(jobs: ["hourly": Self.hourly])
        let runtime = config.path + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        let target = config.path + "/target"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: target))
        #expect(symlink(target, runtime + "/jobd.pid") == 0)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime])
        try daemon.waitForEvent("daemon.ready")
        #expect(daemon.lines.contains { $0.contains("no control socket or pid file") && $0.contains("jobd.pid") })
        #expect(FileManager.default.contents(atPath: target) == Data("precious\n".utf8))
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        #expect(FileManager.default.contents(atPath: target) == Data("precious\n".utf8))
    }
}

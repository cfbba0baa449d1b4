import Foundation
import JobdTestKit
import Testing

/// Only regular files are configuration: a FIFO, a socket and a directory named `*.job`, and a
/// `jobd.conf` that is a FIFO, are errors naming each, found without opening them (issue 20: a
/// FIFO named `x.job` hung jobd's start for good).
@Suite(.serialized) struct SpecialFilesTests {
    /// A configuration with one good job and every kind of special file; the socket stays bound
    /// while the value lives.
    final class Hostile {
        let config: TemporaryConfiguration
        private let socketFD: Int32

        init() throws {
            config = try TemporaryConfiguration(jobs: ["good": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n"])
            let jobs = config.path + "/jobs.d/"
            #expect(mkfifo(jobs + "fifo.job", 0o644) == 0)
            #expect(mkfifo(config.path + "/jobd.conf", 0o644) == 0)
            try FileManager.default.createDirectory(atPath: jobs + "directory.job", withIntermediateDirectories: false)
            #expect(symlink(jobs + "fifo.job", jobs + "link-to-fifo.job") == 0)
            socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array((jobs + "socket.job").utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0)
        }

        deinit { close(socketFD) }

        /// What each special file must be reported as, by path.
        var expected: [(String, String)] {
            [
                (config.path + "/jobd.conf", "it is a FIFO, not a regular file"),
                (config.path + "/jobs.d/directory.job", "it is a directory, not a regular file"),
                (config.path + "/jobs.d/fifo.job", "it is a FIFO, not a regular file"),
                (config.path + "/jobs.d/link-to-fifo.job", "it is a FIFO, not a regular file"),
                (config.path + "/jobs.d/socket.job", "it is a socket, not a regular file"),
            ]
        }
    }

    @Test func jobctlCheckNamesEachAndReturns() throws {
        let hostile = try Hostile()
        let check = try DaemonProcess(product: "jobctl", arguments: ["check", "--config-dir", hostile.config.path])
        let status = try check.waitForExit(timeout: .seconds(10))
        let output = check.lines.joined(separator: "\n")
        #expect(status == 1, "\(output)")
        for (path, message) in hostile.expected {
            #expect(output.contains("\(path): error: \(message)"), "\(path) in:\n\(output)")
        }
    }

    @Test func aJobFileOverOneMebibyteIsAnError() throws {
        let config = try TemporaryConfiguration(jobs: [
            "huge": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n# " + String(repeating: "x", count: 1 << 20) + "\n",
        ])
        let check = try DaemonProcess(product: "jobctl", arguments: ["check", "--config-dir", config.path])
        #expect(try check.waitForExit(timeout: .seconds(10)) == 1)
        #expect(check.lines.contains { $0.hasPrefix("\(config.path)/jobs.d/huge.job: error: the file is larger than 1048576 bytes") },
                "\(check.lines)")
    }

    @Test func jobdReportsEachAtStartWithoutHanging() throws {
        let hostile = try Hostile()
        let daemon = try DaemonProcess(arguments: ["--config-dir", hostile.config.path])
        for (path, message) in hostile.expected {
            try daemon.waitForLine(timeout: .seconds(10), path) { $0.contains("\(path): error: \(message)") }
        }
        daemon.signal(SIGTERM)
        _ = try daemon.waitForExit(timeout: .seconds(10))
    }
}

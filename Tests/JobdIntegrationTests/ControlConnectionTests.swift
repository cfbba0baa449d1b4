import Foundation
import JobdTestKit
import Testing

/// The control socket under clients that trickle, hang up or are refused (issue 20 items 7, 12).
@Suite(.serialized) struct ControlConnectionTests {
    static let hourly = "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n"
    static let watchReload = Array(#"{"version":1,"command":"watch-reload"}"#.utf8) + [10]

    /// The first line the daemon sends, waiting at most 10 s.
    static func firstLine(_ client: RawClient) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while recv(client.fd, &byte, 1, 0) == 1 {
            if byte == 10 { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Every slot taken by a client waiting for a reload's outcome (a legitimate, long wait).
    static func fillEverySlot(_ socket: String) throws -> [RawClient] {
        var clients: [RawClient] = []
        for _ in 0..<32 {
            let client = try RawClient(socket)
            client.send(watchReload)
            #expect(firstLine(client).contains("reload-subscribed"))
            clients.append(client)
        }
        return clients
    }

    /// The request's 5 s run from the accept, not from the last byte: a client that sends a byte
    /// every 400 ms and never ends its line is closed, unanswered, and not before those 5 s.
    @Test func aTricklingClientIsCutOffFiveSecondsAfterItsAccept() throws {
        let setup = try JobctlTests.Setup(jobs: ["hourly": Self.hourly])
        let started = ContinuousClock.now
        let client = try RawClient(setup.runtime + "/jobd.sock")
        // The request, then spaces inside it: no newline ever comes, and no byte waits long.
        let request = Array(#"{"version":1,"command":"status""#.utf8)
        var sent = 0, answer: [UInt8] = [], closed = false
        let patience = ContinuousClock.now + .seconds(60)
        while !closed && ContinuousClock.now < patience {
            client.send([sent < request.count ? request[sent] : UInt8(ascii: " ")])
            sent += 1
            var entry = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 400) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let count = recv(client.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { answer += buffer[..<count] } else if count == 0 || errno != EAGAIN { closed = true }
        }
        let elapsed = ContinuousClock.now - started
        #expect(closed, "the connection was still open after \(elapsed), \(sent) bytes in")
        #expect(answer.isEmpty, "an unfinished request gets no answer: \(String(decoding: answer, as: UTF8.self))")
        // The deadline (ControlProtocol.requestTimeoutSeconds) runs from the accept, which came
        // after `started`: never sooner.
        #expect(elapsed >= .seconds(5), "closed after \(elapsed)")
        print("TRICKLE closed after \(elapsed), \(sent) bytes in")
    }

    @Test func clientsThatHangUpFreeTheirSlotsAtOnce() throws {
        let setup = try JobctlTests.Setup(jobs: ["hourly": Self.hourly])
        var clients = try Self.fillEverySlot(setup.runtime + "/jobd.sock")
        let (busy, busyOutput) = try setup.jobctl(["status"])
        #expect(busy == 1 && busyOutput.contains("too many connections"), "\(busyOutput)")
        // Nothing else frees a slot held for a reload's outcome: no reload comes, and a waiting
        // client has no deadline. So a status served at all was served thanks to the hang-ups.
        clients.removeAll()  // all 32 hang up, with no reload in sight
        try waitUntil(timeout: .seconds(60), "a slot free again after the hang-ups") { try setup.jobctl(["status"]).0 == 0 }
    }

    @Test func aRefusalIsTypedAndTheRefusedClientCanStillSend() throws {
        let setup = try JobctlTests.Setup(jobs: ["hourly": Self.hourly])
        let socket = setup.runtime + "/jobd.sock"
        let clients = try Self.fillEverySlot(socket)
        let refused = try RawClient(socket)
        let line = Self.firstLine(refused)
        #expect(line.contains(#""code":"busy""#) && line.contains(#""type":"error""#), "\(line)")
        // The refusal came before the request was written: writing it now must not be a broken pipe.
        let request = Array(#"{"version":1,"command":"status"}"#.utf8) + [10]
        let sent = request.withUnsafeBytes { send(refused.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #expect(sent == request.count, "send after the refusal: errno \(errno)")
        #expect(refused.readAll().isEmpty, "then the daemon closes")
        withExtendedLifetime(clients) {}
    }

    static let readerVariable = "JOBD_TEST_READER_SOCKET"
    static let readerSocket = ProcessInfo.processInfo.environment[readerVariable]
    /// The file whose creation tells the reader to stop (`JOBD_TEST_READER_STOP`).
    static let readerStopVariable = "JOBD_TEST_READER_STOP"

    /// The hostile reader, run as `nobody` in the readers' group by ``aReaderHoldingItsQuotaCannotKeepRootOut``:
    /// it keeps 40 connections open that send nothing (each held until jobd's 5 s request
    /// deadline), opens new ones as jobd closes or refuses them, and says what it got, until the
    /// stop file appears.
    @Test(.enabled(if: readerSocket != nil, "runs only as the reader child of aReaderHoldingItsQuotaCannotKeepRootOut"))
    func childHoldsReaderSlots() throws {
        let socket = try #require(Self.readerSocket)
        let stop = try #require(ProcessInfo.processInfo.environment[Self.readerStopVariable])
        // Each connection with its number, in the order opened, which is the order jobd accepts them.
        var open: [(client: RawClient, number: Int)] = []
        var opened = 0, refused = 0, heldToTheDeadline = 0, announced = false
        while !FileManager.default.fileExists(atPath: stop) {
            while open.count < 40 {
                open.append((try RawClient(socket), opened))
                opened += 1
            }
            var fds = open.map { pollfd(fd: $0.client.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            var kept: [(client: RawClient, number: Int)] = []
            var lastRefused: Int?
            for (index, connection) in open.enumerated() {
                guard fds[index].revents != 0 else {
                    kept.append(connection)
                    continue
                }
                var buffer = [UInt8](repeating: 0, count: 4_096)
                let count = recv(connection.client.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0, String(decoding: buffer[..<count], as: UTF8.self).contains(#""code":"busy""#) {
                    refused += 1
                    lastRefused = max(lastRefused ?? connection.number, connection.number)
                } else if count == 0 {
                    heldToTheDeadline += 1  // admitted, and closed unanswered at the request deadline
                }
            }
            open = kept
            // A refusal says the reader's slots were full when jobd accepted that connection: the
            // open connections accepted before it, unanswered, are the ones holding them.
            if !announced, let lastRefused {
                let holding = open.count { $0.number < lastRefused }
                if holding >= 4 {
                    print("READER holding \(holding)")
                    announced = true
                }
            }
        }
        print("READER refused=\(refused) held=\(heldToTheDeadline)")
    }

    /// A real unprivileged reader (`nobody`, in the readers' group `nogroup` through the test seam)
    /// holding every slot it can get: root's `status` and `reload` are served throughout (issue 26).
    @Test func aReaderHoldingItsQuotaCannotKeepRootOut() throws {
        let (config, runtime, daemon) = try JobctlTests.daemonWithReaders(jobs: ["hourly": Self.hourly])
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
            withExtendedLifetime(config) {}
        }
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let stop = config.path + "/reader-stop"
        let reader = try DaemonProcess(absolutePath: "/usr/bin/setpriv", arguments: [
            "--reuid=65534", "--regid=65534", "--clear-groups",
            executable, "--testing-library", "swift-testing", "--filter", "childHoldsReaderSlots",
        ], environment: [
            Self.readerVariable: runtime + "/jobd.sock", Self.readerStopVariable: stop,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ])
        try reader.waitForLine("the reader holds its slots", where: { $0.hasPrefix("READER holding") })
        for _ in 0..<6 {
            let process = try DaemonProcess(product: "jobctl", arguments: ["status", "--runtime-dir", runtime])
            #expect(try process.waitForExit() == 0, "root's status while a reader holds its slots: \(process.lines)")
        }
        for _ in 0..<2 {
            let process = try DaemonProcess(product: "jobctl", arguments: ["reload", "--runtime-dir", runtime])
            #expect(try process.waitForExit() == 0, "root's reload while a reader holds its slots: \(process.lines)")
        }
        // The reader holds its slots until root is done, however long root's requests take.
        #expect(FileManager.default.createFile(atPath: stop, contents: nil))
        #expect(try reader.waitForExit(timeout: .seconds(60)) == 0, "\(reader.lines.suffix(20))")
        let summary = try #require(reader.lines.last { $0.hasPrefix("READER refused=") })
        let numbers = summary.split(separator: " ").dropFirst().compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
        #expect(numbers.count == 2 && numbers[0] > 0, "readers beyond their quota are refused: \(summary)")
    }
}

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

    @Test func aTricklingClientIsCutOffFiveSecondsAfterItsAccept() throws {
        let setup = try JobctlTests.Setup(jobs: ["hourly": Self.hourly])
        let client = try RawClient(setup.runtime + "/jobd.sock")
        let started = ContinuousClock.now
        let request = Array(#"{"version":1,"command":"status"}"#.utf8)
        var sent = 0
        // One byte every 400 ms: each arrives well within any per-byte timeout.
        while ContinuousClock.now - started < .seconds(12) {
            if sent < request.count { client.send([request[sent]]) }
            sent += 1
            var entry = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 400) != 0 { break }
        }
        let elapsed = ContinuousClock.now - started
        #expect(client.readAll().isEmpty, "an unfinished request gets no answer")
        #expect(elapsed >= .seconds(4) && elapsed < .seconds(7), "closed after \(elapsed)")
    }

    @Test func clientsThatHangUpFreeTheirSlotsAtOnce() throws {
        let setup = try JobctlTests.Setup(jobs: ["hourly": Self.hourly])
        var clients = try Self.fillEverySlot(setup.runtime + "/jobd.sock")
        let (busy, busyOutput) = try setup.jobctl(["status"])
        #expect(busy == 1 && busyOutput.contains("too many connections"), "\(busyOutput)")
        clients.removeAll()  // all 32 hang up, with no reload in sight
        let deadline = ContinuousClock.now + .seconds(2)
        var served = false
        while !served && ContinuousClock.now < deadline {
            served = try setup.jobctl(["status"]).0 == 0
        }
        #expect(served, "a slot was free again within 2 s of the hang-ups")
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

    /// The hostile reader, run as `nobody` in the readers' group by ``aReaderHoldingItsQuotaCannotKeepRootOut``:
    /// it keeps 40 connections open that send nothing (each held until jobd's 5 s request
    /// deadline), opens new ones as jobd closes or refuses them, and says what it got.
    @Test(.enabled(if: readerSocket != nil, "runs only as the reader child of aReaderHoldingItsQuotaCannotKeepRootOut"))
    func childHoldsReaderSlots() throws {
        let socket = try #require(Self.readerSocket)
        let end = ContinuousClock.now + .seconds(Double(ProcessInfo.processInfo.environment["JOBD_TEST_READER_SECONDS"] ?? "") ?? 8)
        var open: [(client: RawClient, since: ContinuousClock.Instant)] = []
        var refused = 0, heldToTheDeadline = 0, announced = false
        while ContinuousClock.now < end {
            while open.count < 40 { open.append((try RawClient(socket), .now)) }
            var fds = open.map { pollfd(fd: $0.client.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            var kept: [(client: RawClient, since: ContinuousClock.Instant)] = []
            for (index, connection) in open.enumerated() {
                guard fds[index].revents != 0 else {
                    kept.append(connection)
                    continue
                }
                var buffer = [UInt8](repeating: 0, count: 4_096)
                let count = recv(connection.client.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0, String(decoding: buffer[..<count], as: UTF8.self).contains(#""code":"busy""#) {
                    refused += 1
                } else if count == 0 {
                    heldToTheDeadline += 1  // admitted, and closed unanswered at the request deadline
                }
            }
            open = kept
            // Connections silent for a second were admitted: the reader holds its slots.
            let silent = open.count { ContinuousClock.now - $0.since > .seconds(1) }
            if !announced && silent >= 4 {
                print("READER holding \(silent)")
                announced = true
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
        let reader = try DaemonProcess(absolutePath: "/usr/bin/setpriv", arguments: [
            "--reuid=65534", "--regid=65534", "--clear-groups",
            executable, "--testing-library", "swift-testing", "--filter", "childHoldsReaderSlots",
        ], environment: [
            Self.readerVariable: runtime + "/jobd.sock", "JOBD_TEST_READER_SECONDS": "10",
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
        #expect(try reader.waitForExit(timeout: .seconds(60)) == 0, "\(reader.lines.suffix(20))")
        let summary = try #require(reader.lines.last { $0.hasPrefix("READER refused=") })
        let numbers = summary.split(separator: " ").dropFirst().compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
        #expect(numbers.count == 2 && numbers[0] > 0, "readers beyond their quota are refused: \(summary)")
    }
}

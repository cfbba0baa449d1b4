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
}

import Glibc
import SystemdKit
import Testing

/// What waits to be notified and what goes next when the socket has no room, by table; and the
/// sender itself on a socket whose queue the test fills.
@Suite struct NotifyOutboxTests {
    /// One step: notifications posted, then how many messages the socket takes before it is full
    /// (`nil`: all), and the messages it took.
    struct Step: Sendable {
        var post: [[NotifyState]]
        var room: Int?
        var sent: [String]
    }

    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var testDescription: String { name }
    }

    @Test(arguments: [
        Scenario(name: "ready and status travel in one message", steps: [
            Step(post: [[.ready, .status("3 jobs")]], room: nil, sent: ["READY=1\nSTATUS=3 jobs"]),
        ]),
        Scenario(name: "statuses that wait are coalesced to the latest", steps: [
            Step(post: [[.status("a")], [.status("b")]], room: 0, sent: []),
            Step(post: [[.status("c")]], room: nil, sent: ["STATUS=c"]),
        ]),
        Scenario(name: "a ping never waits behind a status or a lifecycle message", steps: [
            Step(post: [[.ready, .status("a")]], room: 0, sent: []),
            Step(post: [[.watchdog], [.status("b")], [.watchdog]], room: 1, sent: ["WATCHDOG=1"]),
            Step(post: [], room: nil, sent: ["READY=1\nSTATUS=b"]),
        ]),
        Scenario(name: "lifecycle messages keep their order; the status goes with the last", steps: [
            Step(post: [[.reloading(monotonicUSec: 7)], [.ready, .status("x")], [.stopping, .status("stopping")]], room: 0, sent: []),
            Step(post: [], room: nil, sent: ["RELOADING=1\nMONOTONIC_USEC=7", "READY=1", "STOPPING=1\nSTATUS=stopping"]),
        ]),
        Scenario(name: "a lifecycle message alone, and the status after it", steps: [
            Step(post: [[.stopping]], room: 0, sent: []),
            Step(post: [[.status("late")]], room: nil, sent: ["STOPPING=1\nSTATUS=late"]),
            Step(post: [[.status("later")]], room: nil, sent: ["STATUS=later"]),
        ]),
    ])
    func whatGoesNext(_ scenario: Scenario) {
        var outbox = NotifyOutbox()
        for step in scenario.steps {
            for states in step.post { outbox.post(states) }
            var sent: [String] = []
            while let message = outbox.next, step.room.map({ sent.count < $0 }) ?? true {
                sent.append(Notifier.message(message))
                outbox.markSent()
            }
            #expect(sent == step.sent)
        }
        #expect(outbox.isEmpty)
    }

    @Test func beyondTheLimitTheOldestLifecycleMessageIsDroppedAndCounted() {
        var outbox = NotifyOutbox()
        for _ in 0..<(NotifyOutbox.lifecycleLimit + 3) { outbox.post([.reloading(monotonicUSec: 1)]) }
        outbox.post([.ready])
        #expect(outbox.lifecycle.count == NotifyOutbox.lifecycleLimit && outbox.dropped == 4)
        #expect(outbox.lifecycle.last == [.ready])
    }

    @Test(arguments: [
        ("/run/systemd/notify", Array("/run/systemd/notify".utf8)),
        ("@jobd-test", [0] + Array("jobd-test".utf8)),
    ])
    func addressesAsSdNotifyReadsThem(_ value: String, _ path: [UInt8]) throws {
        #expect(try NotifySocketAddress(value).path == path)
    }

    @Test(arguments: ["", "@", "relative/notify", "x", "/" + String(repeating: "a", count: 107), "@" + String(repeating: "a", count: 108)])
    func malformedAddressesAreErrors(_ value: String) {
        #expect(throws: SystemdError.self) { try NotifySocketAddress(value) }
        #expect((try? NotifySocketAddress(value)) == nil)
    }

    /// A notify socket whose queue the test has filled: the sender does not wait, it says so.
    @Test(arguments: [false, true])
    func aFullSocketIsWouldBlockNotAWait(abstract: Bool) throws {
        let socket = try NotifySocket(abstract: abstract)
        let notifier = Notifier(address: socket.address)
        var sent = 0
        var delivery = Notifier.Delivery.sent
        // The queue (net.unix.max_dgram_qlen, or the send buffer) fills after some hundreds at most.
        while delivery == .sent && sent < 100_000 {
            delivery = try notifier.send(.status("filler \(sent)"))
            sent += 1
        }
        #expect(delivery == .wouldBlock, "after \(sent) messages")
        #expect(socket.receive() == "STATUS=filler 0")
        #expect(try notifier.send(.watchdog) == .sent, "one read makes room for one message")
        #expect(try Notifier(address: nil).send(.ready) == .notUnderSystemd)
    }
}

import Glibc
@testable import JobdControl
import Synchronization
import Testing

/// A reply's responses as the serving thread takes them.
struct ControlReplyTests {
    /// `list` at 10,000 jobs costs milliseconds to make: the daemon hands over how to make it, and
    /// the serving thread makes it when it writes it, not the daemon's thread that finishes the reply.
    @Test func aLineToMakeIsMadeWhenWrittenNotWhenFinished() throws {
        let (client, server) = try UnixStreamTests.pair()
        defer { close(client); close(server) }
        let reply = ControlReply()
        let made = Atomic<Int>(0)
        reply.finish {
            made.add(1, ordering: .relaxed)
            return Array("{\"made\":true}\n".utf8)
        }
        #expect(made.load(ordering: .relaxed) == 0)
        let outgoing = try #require(reply.next(unlessHungUp: server))
        #expect(made.load(ordering: .relaxed) == 0, "taken, not made yet")
        #expect(outgoing.line == Array("{\"made\":true}\n".utf8))
        #expect(made.load(ordering: .relaxed) == 1)
        #expect(reply.next(unlessHungUp: server).map(\.line) == nil, "finished")
    }

    /// Nothing is sent after a line to make, as after any finish.
    @Test func nothingIsSentAfterALineToMake() throws {
        let (client, server) = try UnixStreamTests.pair()
        defer { close(client); close(server) }
        let reply = ControlReply()
        reply.finish { Array("first\n".utf8) }
        reply.finish(with: .error("too late"))
        #expect(try #require(reply.next(unlessHungUp: server)).line == Array("first\n".utf8))
        #expect(reply.next(unlessHungUp: server).map(\.line) == nil)
    }
}

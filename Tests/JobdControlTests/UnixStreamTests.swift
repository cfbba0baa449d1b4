import Glibc
import Testing

@testable import JobdControl

/// Lines read off a real socket pair, as jobctl reads jobd's replies.
struct UnixStreamTests {
    static func pair() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        return (fds[0], fds[1])
    }

    private static func lines(_ result: UnixStream.LineResult) -> String? {
        if case .line(let bytes) = result { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    @Test func linesThenALastLineWithoutItsNewlineThenClosed() throws {
        let (reader, writer) = try Self.pair()
        defer { close(reader) }
        let text = Array("one\ntwo\nthree".utf8)
        #expect(write(writer, text, text.count) == text.count)
        close(writer)
        var buffer: [UInt8] = []
        #expect(Self.lines(UnixStream.readLine(reader, limit: 1_000, buffer: &buffer)) == "one")
        #expect(Self.lines(UnixStream.readLine(reader, limit: 1_000, buffer: &buffer)) == "two")
        #expect(Self.lines(UnixStream.readLine(reader, limit: 1_000, buffer: &buffer)) == "three")
        // Once: the unterminated line is not handed out again.
        guard case .closed = UnixStream.readLine(reader, limit: 1_000, buffer: &buffer) else {
            Issue.record("expected the end of the stream after the last line")
            return
        }
    }
}

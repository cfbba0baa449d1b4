import JobdProcess
import JobdRunner
import Testing

/// How a job's output bytes become journal lines: at each newline (a `\r` before it dropped), an
/// overlong line cut every `limit` bytes, the rest at the end of the stream, bad UTF-8 repaired.
struct OutputLineSplitterTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var chunks: [[UInt8]]
        var limit = 4_096
        var lines: [String]
        var testDescription: String { "\(chunks.map { String(decoding: $0, as: UTF8.self) }) (limit \(limit))" }
    }

    static func text(_ chunks: String..., limit: Int = 4_096, lines: [String]) -> Case {
        Case(chunks: chunks.map { Array($0.utf8) }, limit: limit, lines: lines)
    }

    static let cases: [Case] = [
        text("a\nb\n", lines: ["a", "b"]),
        text("a", "b\n", lines: ["ab"]),
        text("a\r\n", lines: ["a"]),
        text("a\rb\n", lines: ["a\rb"]),
        text("\n\n", lines: ["", ""]),
        text("tail", lines: ["tail"]),
        text("a\ntail", lines: ["a", "tail"]),
        text("", lines: []),
        text("abcdef", limit: 4, lines: ["abcd", "ef"]),
        text("ab", "cdef\n", limit: 4, lines: ["abcd", "ef"]),
        // A line exactly as long as the limit is one line, not one and an empty one.
        text("abcd\nef\n", limit: 4, lines: ["abcd", "ef"]),
        text("abcd", "\n", "ef\n", limit: 4, lines: ["abcd", "ef"]),
        text("abcdefgh\n", limit: 4, lines: ["abcd", "efgh"]),
        text("abcd\n\n", limit: 4, lines: ["abcd", ""]),
        Case(chunks: [[0xFF, 0x0A]], lines: ["\u{FFFD}"]),
        // A character split between two reads is whole in its line.
        Case(chunks: [[0x61, 0xC3], [0xA9, 0x0A]], lines: ["aé"]),
    ]

    @Test(arguments: cases)
    func splits(_ test: Case) {
        var splitter = OutputLineSplitter(limit: test.limit)
        var lines: [String] = []
        for chunk in test.chunks {
            chunk.withUnsafeBytes { splitter.append($0) { lines.append($0) } }
        }
        splitter.finish { lines.append($0) }
        #expect(lines == test.lines)
    }
}

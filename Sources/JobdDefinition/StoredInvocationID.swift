/// How a ``RunOutcome`` keeps its `JOBD_RUN_ID=`: an ID of jobd's own making (32 lowercase hex
/// digits, as systemd's `INVOCATION_ID=`) as its 128 bits, in the outcome's own bytes; any other
/// text (a test's, or one read back from an earlier jobd's files) as it is.
///
/// Why: a job's history keeps its last outcome as long as the job exists, and a 32-character
/// `String` is a heap allocation of its own, made as the run ends. After a burst of runs, thousands
/// of these sat among the pages the burst's runs had freed, and those pages could not be given back
/// (issue 39: jobd's RSS after a burst).
package enum StoredInvocationID: Sendable, Hashable {
    case bits(high: UInt64, low: UInt64)
    case text(String)

    /// `text` as bits when writing the bits gives `text` back exactly; otherwise the text itself.
    package init(_ text: String) {
        let isLowerHex = text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
        guard text.utf8.count == 32, isLowerHex,
              let high = UInt64(text.prefix(16), radix: 16), let low = UInt64(text.suffix(16), radix: 16) else {
            self = .text(text)
            return
        }
        self = .bits(high: high, low: low)
    }

    /// The ID as the journal, the control socket and the saved history write it.
    package var text: String {
        switch self {
        case .text(let text): text
        case .bits(let high, let low): Self.hex(high) + Self.hex(low)
        }
    }

    private static func hex(_ word: UInt64) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

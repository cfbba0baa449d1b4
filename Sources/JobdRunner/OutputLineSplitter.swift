/// Cuts a stream of bytes into lines: at `\n` (dropping a `\r` before it), and every `limit`
/// bytes within an overlong line, so that memory stays bounded whatever a job writes.
/// Invalid UTF-8 is repaired with U+FFFD rather than dropped.
public struct OutputLineSplitter: Sendable {
    public let limit: Int
    private var pending: [UInt8] = []

    public init(limit: Int = 4_096) {
        precondition(limit > 0)
        self.limit = limit
        pending.reserveCapacity(min(limit, 4_096))
    }

    /// Feeds `bytes`; calls `emit` for each line completed by them.
    public mutating func append(_ bytes: UnsafeRawBufferPointer, emit: (String) -> Void) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emitPending(emit)
                continue
            }
            pending.append(byte)
            if pending.count >= limit { emitPending(emit) }
        }
    }

    /// Emits what is left at the end of the stream, if anything.
    public mutating func finish(emit: (String) -> Void) {
        if !pending.isEmpty { emitPending(emit) }
    }

    private mutating func emitPending(_ emit: (String) -> Void) {
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        emit(String(decoding: pending, as: UTF8.self))
        pending.removeAll(keepingCapacity: true)
    }
}

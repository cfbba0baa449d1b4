import Glibc

/// Cuts a stream of bytes into lines: at `\n` (dropping a `\r` before it), and every `limit`
/// bytes within an overlong line, so that memory stays bounded whatever a job writes.
/// Invalid UTF-8 is repaired with U+FFFD rather than dropped.
package struct OutputLineSplitter: Sendable {
    package let limit: Int
    private var pending: [UInt8] = []
    /// Whether the last line was cut at the limit: a newline right after it ends that line, not
    /// an empty one.
    private var cutAtLimit = false

    package init(limit: Int = 4_096) {
        precondition(limit > 0)
        self.limit = limit
        pending.reserveCapacity(limit)
    }

    /// A splitter that goes on from `pending`, the start of a line another one had read (a run
    /// handed over across a restart of jobd).
    package init(limit: Int = 4_096, pending: [UInt8]) {
        self.init(limit: limit)
        self.pending.append(contentsOf: pending.prefix(limit))
    }

    /// The start of a line not yet ended.
    package var pendingBytes: [UInt8] { pending }

    /// Feeds `bytes`; calls `emit` for each line completed by them. Lines are found with
    /// `memchr` and copied whole, so a job that writes a lot costs little per byte.
    package mutating func append(_ bytes: UnsafeRawBufferPointer, emit: (String) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            if cutAtLimit, base.load(fromByteOffset: offset, as: UInt8.self) == UInt8(ascii: "\n") {
                cutAtLimit = false
                offset += 1
                continue
            }
            cutAtLimit = false
            let room = limit - pending.count
            let window = min(room, bytes.count - offset)
            let newline = memchr(base + offset, Int32(UInt8(ascii: "\n")), window)
            let length = newline.map { base.distance(to: UnsafeRawPointer($0)) - offset } ?? window
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base + offset, count: length))
            offset += length
            if newline != nil {
                offset += 1
                emitPending(emit)
            } else if pending.count >= limit {
                emitPending(emit)
                cutAtLimit = true
            }
        }
    }

    /// Emits what is left at the end of the stream, if anything.
    package mutating func finish(emit: (String) -> Void) {
        if !pending.isEmpty { emitPending(emit) }
    }

    private mutating func emitPending(_ emit: (String) -> Void) {
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        emit(String(decoding: pending, as: UTF8.self))
        pending.removeAll(keepingCapacity: true)
    }
}

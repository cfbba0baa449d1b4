import Foundation
import JobdTimers

/// Reads a process's output from a pipe on a thread of its own and hands each line to `handler`
/// with the `CLOCK_MONOTONIC` time it arrived.
final class StampedLines: @unchecked Sendable {
    let pipe = Pipe()
    private let finished = DispatchSemaphore(value: 0)

    init(handler: @escaping @Sendable (Substring, MonotonicInstant) -> Void) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [finished] in
            var pending = ""
            while true {
                let chunk = handle.availableData
                let now = MonotonicInstant.now()
                if chunk.isEmpty { break }
                pending += String(decoding: chunk, as: UTF8.self)
                guard let lastNewline = pending.lastIndex(of: "\n") else { continue }
                for line in pending[..<lastNewline].split(separator: "\n") { handler(line, now) }
                pending = String(pending[pending.index(after: lastNewline)...])
            }
            finished.signal()
        }
    }

    /// After the writer exited and our copy of the write end is closed: waits for the last line.
    func waitForEnd() {
        try? pipe.fileHandleForWriting.close()
        finished.wait()
    }
}

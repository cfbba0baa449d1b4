import Foundation

/// Items arriving from another thread (lines a process prints, datagrams a socket receives), which
/// a test can read at any time and wait for: waiting is on the arrival itself, bounded only so that
/// a hang becomes a failure that shows what did arrive.
package final class AwaitableLog<Element: Sendable>: @unchecked Sendable {
    package struct Timeout: Error, CustomStringConvertible {
        package var waitingFor: String
        package var arrived: [String]
        package var description: String {
            "timed out waiting for \(waitingFor); what arrived:\n" + arrived.suffix(40).joined(separator: "\n")
        }
    }

    private let condition = NSCondition()
    private var items: [Element] = []
    private var closed = false

    package init() {}

    /// Everything so far.
    package var all: [Element] {
        condition.lock()
        defer { condition.unlock() }
        return items
    }

    package func append(contentsOf new: [Element]) {
        condition.lock()
        items += new
        condition.broadcast()
        condition.unlock()
    }

    /// No more items will come.
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for an item at index `start` or later that satisfies `predicate`; returns its index.
    package func waitFor(
        from start: Int, timeout: Duration, _ description: String, where predicate: (Element) -> Bool
    ) throws -> Int {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        var index = start
        while true {
            while index < items.count {
                if predicate(items[index]) { return index }
                index += 1
            }
            if closed || !condition.wait(until: deadline) {
                throw Timeout(waitingFor: description, arrived: items.map { "\($0)" })
            }
        }
    }

    /// Waits until no more items will come.
    package func waitForClose(timeout: Duration) throws {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            if !condition.wait(until: deadline) {
                throw Timeout(waitingFor: "the end", arrived: items.map { "\($0)" })
            }
        }
    }
}

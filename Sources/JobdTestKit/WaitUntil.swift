import Foundation

/// Waits until `condition` holds, checking it every 50 ms, for state that announces no event of its
/// own (rows in a database another process writes): the wait ends as soon as it holds, and fails
/// with `what` when `timeout` passes first.
package func waitUntil(timeout: Duration, _ what: String, _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimeout(message: "timed out after \(timeout) waiting for \(what)") }
        Thread.sleep(forTimeInterval: 0.05)
    }
}

/// A ``waitUntil(timeout:_:_:)`` whose condition never held.
package struct WaitTimeout: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

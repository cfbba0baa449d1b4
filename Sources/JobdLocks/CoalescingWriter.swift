import Dispatch

/// Writes the latest value handed in for each key, in the background: the thread that hands it in
/// never waits for the disk, and what waits is at most one value a key (a key whose value was
/// replaced before it was written is written once, with the newer value). A `nil` value is a removal,
/// done at once; values wait `pause` and come at most once a `pause`: runs at 1,000 a second had the
/// state directory's writers fsync and rename files at each, half of jobd's CPU (issue 39).
package final class CoalescingWriter<Value: Sendable>: Sendable {
    private struct Pending: Sendable {
        var values: [String: Value?] = [:]
        var draining = false
    }

    private let pending = LockedBox(Pending())
    private let queue = DispatchQueue(label: "jobd.state-writer")
    private let pause: DispatchTimeInterval
    private let perform: @Sendable (String, Value?) -> Void

    /// `perform` writes one key's value (or removes it, for `nil`); it runs on the writer's queue,
    /// so a value that is turned into text there (a job's history) costs nothing when a newer one
    /// replaces it first.
    package init(pause: Duration = .milliseconds(100), perform: @escaping @Sendable (String, Value?) -> Void) {
        self.pause = .microseconds(Int(pause / .microseconds(1)))
        self.perform = perform
    }

    package func submit(_ key: String, _ value: Value?) {
        let start = pending.withLock { pending in
            pending.values[key] = .some(value)
            defer { pending.draining = true }
            return !pending.draining
        }
        if start { queue.asyncAfter(deadline: .now() + pause) { self.drain() } }
        if value == nil { queue.async { _ = self.write(removalsOnly: true) } }
    }

    /// Waits until everything submitted before the call is written.
    package func flush() {
        queue.sync { while write() {} }
    }

    /// A batch, and another a pause later while values keep coming.
    private func drain() {
        if write() { queue.asyncAfter(deadline: .now() + pause) { self.drain() } }
    }

    /// Writes what waits (or only its removals); returns whether anything did. Finding nothing
    /// ends the draining, so that the next value submitted starts it again.
    private func write(removalsOnly: Bool = false) -> Bool {
        let batch = pending.withLock { pending in
            let taken = removalsOnly ? pending.values.filter { $0.value == nil } : pending.values
            defer { pending.values = removalsOnly ? pending.values.filter { $0.value != nil } : [:] }
            if pending.values.isEmpty { pending.draining = false }
            return taken
        }
        for (key, value) in batch.sorted(by: { $0.key < $1.key }) { perform(key, value) }
        return !batch.isEmpty
    }
}

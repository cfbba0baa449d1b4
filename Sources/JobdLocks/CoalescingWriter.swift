import Dispatch

/// Writes the latest value handed in for each key, in the background: the thread that hands it in
/// never waits for the disk, and what waits is at most one value a key (a key whose value was
/// replaced before it was written is written once, with the newer value). A `nil` value is a
/// removal. Used for the state directory's run histories, which change at every run's end.
package final class CoalescingWriter: Sendable {
    private struct Pending: Sendable {
        var values: [String: String?] = [:]
        var draining = false
    }

    private let pending = LockedBox(Pending())
    private let queue = DispatchQueue(label: "jobd.state-writer")
    private let perform: @Sendable (String, String?) -> Void

    /// `perform` writes one key's value (or removes it, for `nil`); it runs on the writer's queue.
    package init(perform: @escaping @Sendable (String, String?) -> Void) {
        self.perform = perform
    }

    package func submit(_ key: String, _ value: String?) {
        let start = pending.withLock { pending in
            pending.values[key] = .some(value)
            defer { pending.draining = true }
            return !pending.draining
        }
        if start { queue.async { self.drain() } }
    }

    /// Waits until everything submitted before the call is written.
    package func flush() {
        queue.sync {}
    }

    private func drain() {
        while true {
            let batch = pending.withLock { pending in
                defer { pending.values.removeAll() }
                if pending.values.isEmpty { pending.draining = false }
                return pending.values
            }
            if batch.isEmpty { return }
            for (key, value) in batch.sorted(by: { $0.key < $1.key }) { perform(key, value) }
        }
    }
}

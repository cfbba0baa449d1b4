/// How many owners were created, released, carried over, and are still alive, for one generation
/// or a whole instance.
package struct OwnerCounts: Sendable, Hashable, Codable {
    /// `owner.init` events.
    package var created = 0
    /// Owners released (`owner.deinit`, or `owner.late-deinit` without one).
    package var released = 0
    /// Owners carried into a later generation by a reload that kept their job (`owner.retain`).
    package var carriedOver = 0
    /// Owners alive at the end in the running generation: fine, the daemon had not stopped.
    package var running = 0
    /// Retired owners alive at the end whose grace period had not passed.
    package var pending = 0
    /// Retired owners alive past their grace period or jobd's exit, or reported by `owner.leak`.
    package var leaked = 0
    /// Retired owners not seen released in an instance whose journal lost entries: their
    /// `owner.deinit` may be among them (``UnreleasedOwner/State/unaccounted``).
    package var unaccounted = 0
    /// Owners seen without their `owner.init` (rotated away or before `--since`); instance totals only.
    package var unknownOrigin = 0

    /// No owners.
    package init() {}

    /// Owners alive at the end, whatever their state.
    package var alive: Int { running + pending + leaked + unaccounted }
}

/// How many owners were created, released, carried over, and are still alive, for one generation
/// or a whole instance.
public struct OwnerCounts: Sendable, Hashable, Codable {
    /// `owner.init` events.
    public var created = 0
    /// Owners released (`owner.deinit`, or `owner.late-deinit` without one).
    public var released = 0
    /// Owners carried into a later generation by a reload that kept their job (`owner.retain`).
    public var carriedOver = 0
    /// Owners alive at the end in the running generation: fine, the daemon had not stopped.
    public var running = 0
    /// Retired owners alive at the end whose grace period had not passed.
    public var pending = 0
    /// Retired owners alive past their grace period or jobd's exit, or reported by `owner.leak`.
    public var leaked = 0
    /// Owners seen without their `owner.init` (rotated away or before `--since`); instance totals only.
    public var unknownOrigin = 0

    /// No owners.
    public init() {}

    /// Owners alive at the end, whatever their state.
    public var alive: Int { running + pending + leaked }
}

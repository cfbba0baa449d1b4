/// Why a timer was invalidated. Each invalidation is reported once, with the first reason given.
public enum InvalidationReason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The owner's `deinit` invalidated its timer: the normal end of an owner's life.
    case ownerDeinit = "owner-deinit"
    /// The timer fired and found its target already gone, and invalidated itself.
    case targetGone = "target-gone"
    /// The process is shutting down.
    case shutdown

    public var description: String { rawValue }
}

package import JobdCalendar
package import JobdTimers

/// An optional instant kept in 8 bytes rather than an `Optional`'s 16 (its 9 bytes, padded), one
/// value standing for "none": a job's history keeps ten of them for every job, and a burst of
/// runs makes every job's history resident (issue 39: jobd's RSS after a burst).
@propertyWrapper
package struct PackedInstant<Instant: PackableInstant>: Sendable, Hashable {
    private var packed: UInt64

    package init(wrappedValue: Instant?) {
        packed = wrappedValue?.packed ?? Instant.absent
    }

    /// The bit pattern standing for "none" reads back as `nil`: it is an instant no clock of jobd's
    /// reaches (see each instant's `absent`), so only a damaged saved history could hold it, and
    /// "unknown" is the honest reading of that.
    package var wrappedValue: Instant? {
        get { packed == Instant.absent ? nil : Instant(packed: packed) }
        set { packed = newValue?.packed ?? Instant.absent }
    }
}

/// An instant that fits 64 bits with one pattern to spare.
package protocol PackableInstant: Sendable {
    /// The pattern that stands for no instant.
    static var absent: UInt64 { get }
    var packed: UInt64 { get }
    init(packed: UInt64)
}

extension MonotonicInstant: PackableInstant {
    /// 584 years after the boot.
    package static var absent: UInt64 { .max }
    package var packed: UInt64 { nanoseconds }
    package init(packed: UInt64) { self.init(nanoseconds: packed) }
}

extension RealtimeInstant: PackableInstant {
    /// 292,000 years before 1970.
    package static var absent: UInt64 { UInt64(bitPattern: .min) }
    package var packed: UInt64 { UInt64(bitPattern: microseconds) }
    package init(packed: UInt64) { self.init(microseconds: Int64(bitPattern: packed)) }
}

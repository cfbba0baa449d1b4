/// A point in a journal: an entry's realtime and monotonic timestamps and the boot they belong to.
///
/// Elapsed time between two instants of the same boot is measured on the monotonic clock, which a
/// changed wall clock cannot bend; across boots only realtime is comparable.
package struct JournalInstant: Sendable, Hashable, Codable {
    /// The boot id used when none is known (synthetic entries).
    package static let unknownBoot = String(repeating: "0", count: 32)

    /// Microseconds since the Unix epoch (`__REALTIME_TIMESTAMP`).
    package var realtimeUSec: UInt64
    /// `CLOCK_MONOTONIC` of ``bootID`` in microseconds (`__MONOTONIC_TIMESTAMP`).
    package var monotonicUSec: UInt64
    /// The boot, as 32 hex digits (`_BOOT_ID`).
    package var bootID: String

    /// Makes an instant.
    package init(realtimeUSec: UInt64, monotonicUSec: UInt64, bootID: String) {
        self.realtimeUSec = realtimeUSec
        self.monotonicUSec = monotonicUSec
        self.bootID = bootID
    }

    /// Microseconds from `self` to `later` (0 when `later` is not later): monotonic within one boot,
    /// realtime across boots.
    package func microseconds(until later: JournalInstant) -> UInt64 {
        if bootID == later.bootID {
            return later.monotonicUSec > monotonicUSec ? later.monotonicUSec - monotonicUSec : 0
        }
        return later.realtimeUSec > realtimeUSec ? later.realtimeUSec - realtimeUSec : 0
    }

    /// Whether `self` comes strictly before `other`: by monotonic time within a boot, else by realtime.
    package func isBefore(_ other: JournalInstant) -> Bool {
        bootID == other.bootID ? monotonicUSec < other.monotonicUSec : realtimeUSec < other.realtimeUSec
    }
}

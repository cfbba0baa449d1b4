/// One boot as a journal knows it: the `_BOOT_ID` of its entries and when its first and last
/// entries were received. ``JournalReader/boots()`` lists them oldest first, as
/// `journalctl --list-boots` does, so that `--boot -1` can be resolved.
package struct JournalBoot: Sendable, Hashable {
    /// The boot's id, 32 lowercase hex digits.
    package let id: String
    /// The realtime of the boot's first entry in the journal, in microseconds since the epoch.
    package let firstRealtimeUSec: UInt64
    /// The realtime of the boot's last entry in the journal.
    package let lastRealtimeUSec: UInt64

    package init(id: String, firstRealtimeUSec: UInt64, lastRealtimeUSec: UInt64) {
        self.id = id
        self.firstRealtimeUSec = firstRealtimeUSec
        self.lastRealtimeUSec = lastRealtimeUSec
    }
}

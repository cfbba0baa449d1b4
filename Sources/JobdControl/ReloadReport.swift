/// The outcome of a reload.
package struct ReloadReport: Codable, Sendable, Equatable {
    /// Reloads finished so far in this daemon, accepted or not: a client waits for the next number.
    package var sequence: UInt64
    package var accepted: Bool
    package var generation: UInt64
    package var added: [String]
    package var changed: [String]
    package var removed: [String]
    package var kept: [String]
    /// Every configuration error, as `FILE:LINE: error: MESSAGE`.
    package var errors: [String]
    package var finishedRealtimeUSec: Int64?

    package init(
        sequence: UInt64, accepted: Bool, generation: UInt64, added: [String] = [], changed: [String] = [],
        removed: [String] = [], kept: [String] = [], errors: [String] = [], finishedRealtimeUSec: Int64? = nil
    ) {
        self.sequence = sequence
        self.accepted = accepted
        self.generation = generation
        self.added = added
        self.changed = changed
        self.removed = removed
        self.kept = kept
        self.errors = errors
        self.finishedRealtimeUSec = finishedRealtimeUSec
    }
}

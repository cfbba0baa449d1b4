/// The outcome of a reload. On the wire through ``write(to:)`` and ``init(reading:)``.
package struct ReloadReport: Codable, Sendable, Equatable {
    /// Reloads finished so far in this daemon, accepted or not: a client waits for the next number.
    package var sequence: UInt64
    package var accepted: Bool
    package var generation: UInt64
    package var added: [String]
    package var changed: [String]
    package var removed: [String]
    /// How many jobs the reload left as they were: a count, since no client shows their names
    /// (at 10,000 jobs the names were most of every reply). On the wire as `keptCount`, beside an
    /// empty `kept` for the jobctl before it (``write(to:)``).
    package var kept: Int
    /// Every configuration error, as `FILE:LINE: error: MESSAGE`.
    package var errors: [String]
    package var finishedRealtimeUSec: Int64?
    /// Whose each of ``errors`` is. Not on the wire: it decides which errors a user is shown
    /// (``shown(to:)``), and only root's make a reload partial.
    package var errorOwners: [Owner] = []
    /// The uid owning each user's own job among ``added``, ``changed`` and ``removed``, as its load
    /// recorded it. Not on the wire: it decides which a user is shown (``shown(to:)``).
    package var jobOwners: [String: UInt32] = [:]

    /// Whose an error is.
    package enum Owner: Sendable, Equatable {
        /// jobd.conf's, or a system job file's.
        case root
        /// A user's own job file's, by the uid its load recorded; `nil` when no live account owns
        /// it (the account is gone, or the file is another uid's): then only root sees it.
        case user(UInt32?)
    }

    package init(
        sequence: UInt64, accepted: Bool, generation: UInt64, added: [String] = [], changed: [String] = [],
        removed: [String] = [], kept: Int = 0, errors: [String] = [], finishedRealtimeUSec: Int64? = nil
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

    /// The keys of the `Codable` reference: `kept` is the count the wire calls `keptCount`.
    enum CodingKeys: String, CodingKey {
        case sequence, accepted, generation, added, changed, removed, errors, finishedRealtimeUSec
        case kept = "keptCount"
    }
}

package import JobdCalendar

/// One row of the claims table: who claimed a run of an elapse, and how it ended.
package struct ClaimRecord: Sendable, Hashable {
    package var key: ClaimKey
    package var node: String
    /// The run's `JOBD_RUN_ID`, as the node's journal has it.
    package var runID: String
    package var claimedAt: RealtimeInstant
    package var leaseUntil: RealtimeInstant
    package var endedAt: RealtimeInstant?
    /// A ``JobdConfig/RunResult`` raw value; `lost` for a run recorded lost.
    package var result: String?
    package var lostAt: RealtimeInstant?
    /// The node that recorded it lost.
    package var lostBy: String?
    /// For a run recorded lost: when it really ended, and how, once its node wrote it (schema version 2).
    package var runEndedAt: RealtimeInstant?
    package var runResult: String?

    package init(
        key: ClaimKey, node: String, runID: String, claimedAt: RealtimeInstant, leaseUntil: RealtimeInstant,
        endedAt: RealtimeInstant? = nil, result: String? = nil, lostAt: RealtimeInstant? = nil, lostBy: String? = nil
    ) {
        self.key = key
        self.node = node
        self.runID = runID
        self.claimedAt = claimedAt
        self.leaseUntil = leaseUntil
        self.endedAt = endedAt
        self.result = result
        self.lostAt = lostAt
        self.lostBy = lostBy
    }

    /// Neither ended nor recorded lost: in flight, or a node's run nobody has yet seen lapse.
    package var isOpen: Bool { endedAt == nil && lostAt == nil }

    /// When the run surely no longer ran, as far as the record tells (`nil`: it may still run): its
    /// end; for a run recorded lost, its real end once its node wrote it, else its lease's end,
    /// by which its fence stopped it.
    package var ranUntil: RealtimeInstant? {
        if let endedAt { return endedAt }
        guard lostAt != nil else { return nil }
        return runEndedAt ?? leaseUntil
    }
}

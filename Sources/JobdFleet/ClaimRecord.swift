import JobdCalendar

/// One row of the claims table: who claimed a run of an elapse, and how it ended.
public struct ClaimRecord: Sendable, Hashable {
    public var key: ClaimKey
    public var node: String
    /// The run's `JOBD_RUN_ID`, as the node's journal has it.
    public var runID: String
    public var claimedAt: RealtimeInstant
    public var leaseUntil: RealtimeInstant
    public var endedAt: RealtimeInstant?
    /// A ``JobdConfig/RunResult`` raw value; `lost` for a run recorded lost.
    public var result: String?
    public var lostAt: RealtimeInstant?
    /// The node that recorded it lost.
    public var lostBy: String?

    public init(
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
    public var isOpen: Bool { endedAt == nil && lostAt == nil }
}

/// One start of jobd on a node, and its last heartbeat.
public struct NodeSession: Sendable, Hashable {
    public var node: String
    public var instance: String
    public var startedAt: RealtimeInstant
    public var heartbeatAt: RealtimeInstant

    public init(node: String, instance: String, startedAt: RealtimeInstant, heartbeatAt: RealtimeInstant) {
        self.node = node
        self.instance = instance
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
    }
}

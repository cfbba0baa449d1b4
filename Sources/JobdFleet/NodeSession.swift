package import JobdCalendar

/// One start of jobd on a node, and its last heartbeat.
package struct NodeSession: Sendable, Hashable {
    package var node: String
    package var instance: String
    package var startedAt: RealtimeInstant
    package var heartbeatAt: RealtimeInstant

    package init(node: String, instance: String, startedAt: RealtimeInstant, heartbeatAt: RealtimeInstant) {
        self.node = node
        self.instance = instance
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
    }
}

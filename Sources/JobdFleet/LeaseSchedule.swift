/// The arithmetic of leases and reconnection, apart from any clock or database so that tests can
/// drive it with numbers.
///
/// A node renews its leases, heartbeats and looks for lapsed leases every third of the lease: a
/// renewal can fail twice before its lease lapses. Reconnection waits double after each failure,
/// from a second up to a third of the lease (never longer than 30 s), so a database that is back
/// is used again within that bound.
package struct LeaseSchedule: Sendable, Hashable {
    /// The lease, in microseconds.
    package var leaseMicroseconds: Int64
    /// The largest accepted distance between this node's clock and the database's, in microseconds.
    package var maxSkewMicroseconds: Int64

    package init(leaseMicroseconds: Int64, maxSkewMicroseconds: Int64) {
        self.leaseMicroseconds = max(1, leaseMicroseconds)
        self.maxSkewMicroseconds = maxSkewMicroseconds
    }

    /// How long before its lease ends a run's fence stops it: `MaxClockSkewSec=` (which covers the
    /// clocks' drift and the statement's way to the database), at least 200 ms (the supervisor
    /// looks every 100 ms) and at most a third of the lease, so that a node that beats every third
    /// of the lease renews twice before a fence fires.
    package var fenceMarginMicroseconds: Int64 {
        min(max(maxSkewMicroseconds, 200_000), leaseMicroseconds / 3)
    }

    /// The deadline a claim or renewal sent at `sent` (``LeaseFences/boottime()``) gives the run's
    /// fence: the database set the lease from its `now()`, which is later than `sent`, so the
    /// lease surely holds until then.
    package func fenceDeadline(sentAt sent: Int64) -> Int64 {
        sent + leaseMicroseconds - fenceMarginMicroseconds
    }

    /// How often leases are renewed and heartbeats sent.
    package var beatInterval: Duration { .microseconds(max(100_000, leaseMicroseconds / 3)) }

    /// How long one database operation may take before the connection is given up as broken.
    package var operationTimeout: Duration { .microseconds(operationTimeoutMicroseconds) }
    package var operationTimeoutMicroseconds: Int64 { min(5_000_000, max(500_000, leaseMicroseconds / 3)) }

    /// The wait before reconnection attempt `failures` (1 after the first failure).
    package func reconnectDelay(afterFailures failures: Int) -> Duration {
        let ceiling = min(30_000_000, max(1_000_000, leaseMicroseconds / 3))
        let shift = min(max(failures - 1, 0), 20)
        return .microseconds(min(ceiling, Int64(500_000) << shift))
    }

    /// Whether an elapse this node skipped (`fleet-unavailable`) gets its row now, at `now` (this
    /// node's clock, microseconds). At a beat, only once no node can still be about to claim it: a
    /// lease and twice `MaxClockSkewSec=` after it (a node with a slower clock fires later).
    /// When jobd stops, every one: no later beat of this node would write it (the audit would find
    /// the elapse unclaimed), and a skip row blocks no late claim, which takes it over
    /// (``FleetDatabase``'s claim).
    package func recordsSkip(of elapse: Int64, now: Int64, stopping: Bool) -> Bool {
        stopping || elapse < now - leaseMicroseconds - 2 * maxSkewMicroseconds
    }

    /// The offset of the database's clock from this node's (positive: the database is ahead), from
    /// a reading of the database's `now()` taken between two local readings.
    package static func clockOffset(database: Int64, localBefore: Int64, localAfter: Int64) -> Int64 {
        database - (localBefore + (localAfter - localBefore) / 2)
    }

    /// Whether a node whose clock is `offset` from the database's may claim.
    /// `uncertainty` is how far the measured offset may be wrong (half the round trip that measured
    /// it): a node is refused only when it is surely too far off, so that a slow database does not
    /// read as a wrong clock.
    package func acceptsSkew(_ offset: Int64, uncertainty: Int64 = 0) -> Bool {
        offset.magnitude <= UInt64(maxSkewMicroseconds) + UInt64(max(0, uncertainty))
    }
}

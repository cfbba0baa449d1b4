import JobdCalendar

/// Keeps a node in its fleet: connects (again, with backoff, after any failure), and beats every
/// third of the lease, reporting what changed. It runs until its task is cancelled.
package struct FleetLink: Sendable {
    /// What the daemon hears from the link.
    package enum Notice: Sendable {
        /// Connected (again): the database's clock minus this node's, in microseconds.
        case connected(clockOffset: Int64)
        /// The database cannot be reached; the link tries again after `retryIn`. `failures` counts
        /// the failures in a row (1 for the first since the link last worked).
        case unavailable(reason: String, retryIn: Duration, failures: Int)
        /// The clock check's verdict changed: a node whose clock is too far off claims nothing.
        case clock(offset: Int64, accepted: Bool)
        /// Runs of other nodes this node recorded lost.
        case lost([FleetDatabase.LostClaim])
        /// Claims this node removed as older than `MaxRetentionSec=`.
        case pruned(Int)
    }

    package let database: FleetDatabase
    /// Whether the caller connected already (and said so): the link then starts with a beat.
    package var connected: Bool

    package init(database: FleetDatabase, connected: Bool = false) {
        self.database = database
        self.connected = connected
    }

    package func run(_ notify: @escaping @Sendable (Notice) -> Void) async {
        let schedule = database.schedule
        var failures = 0
        var connected = self.connected
        var clockAccepted: Bool?
        while !Task.isCancelled {
            do {
                let report: FleetDatabase.BeatReport
                if connected, await database.isConnected {
                    report = try await database.beat()
                } else {
                    report = try await database.connect()
                    connected = true
                    failures = 0
                    notify(.connected(clockOffset: report.clockOffset))
                }
                let accepted = schedule.acceptsSkew(report.clockOffset, uncertainty: report.clockUncertainty)
                if accepted != clockAccepted {
                    if clockAccepted != nil || !accepted { notify(.clock(offset: report.clockOffset, accepted: accepted)) }
                    clockAccepted = accepted
                }
                if !report.lost.isEmpty { notify(.lost(report.lost)) }
                if report.pruned > 0 { notify(.pruned(report.pruned)) }
                try await Task.sleep(for: schedule.beatInterval)
            } catch is CancellationError {
                return
            } catch {
                connected = false
                failures += 1
                let delay = schedule.reconnectDelay(afterFailures: failures)
                notify(.unavailable(reason: FleetDatabase.describe(error), retryIn: delay, failures: failures))
                do { try await Task.sleep(for: delay) } catch { return }
            }
        }
    }
}

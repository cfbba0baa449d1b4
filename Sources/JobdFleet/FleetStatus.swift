import JobdCalendar
package import JobdConfig
import JobdLogging
package import Logging

/// What this node knows of the fleet: what `STATUS=` says of the link, and which node claimed each
/// fleet job's last elapse this node saw (`jobctl status`).
package struct FleetStatus {
    package private(set) var state: String?
    package var lastNode: [String: String] = [:]

    package init() {}

    /// What a claim's verdict makes of its run.
    package enum ClaimAnswer: Equatable {
        /// This node holds the elapse: the run starts, with the claim's fencing token.
        case start(token: Int64)
        /// The run leaves the admission as skipped for `reason`; with `releasesClaim`, this node
        /// won a claim it will not run (jobd is stopping, or a reload removed the job meanwhile),
        /// and the claim ends without a run.
        case decline(reason: String, releasesClaim: Bool)
    }

    /// The verdict on the claim of `job`'s run, which can still start (`startable`: in flight, its
    /// job defined, jobd not stopping) or not. Notes who claimed the elapse: `node` is this one.
    package mutating func claimed(_ verdict: ClaimVerdict, job: String, node: String?, startable: Bool, stopping: Bool) -> ClaimAnswer {
        switch verdict {
        case .won(let token):
            lastNode[job] = node
            if startable { return .start(token: token) }
        case .taken(let other):
            lastNode[job] = other
        case .unavailable:
            break
        }
        return .decline(reason: verdict.skipReason ?? (stopping ? "stopping" : "job-removed"), releasesClaim: verdict.isWon)
    }

    /// Notes what the fleet link reports, and says it in the journal. Returns the runs of other
    /// nodes found lost, which this node may retry.
    package mutating func heard(_ notice: FleetLink.Notice, settings: FleetSettings?, logger: Logger) -> [FleetDatabase.LostClaim] {
        let node = settings?.node ?? "?"
        switch notice {
        case .connected(let offset):
            state = "connected as \(node)"
            logger.notice("fleet: connected to the database as node \(node) (clock offset \(Self.milliseconds(offset)))",
                          metadata: [JobdField.node: .string(node)])
        case .unavailable(let reason, let retryIn, let failures):
            state = "database unavailable, reconnecting"
            logger.log(level: failures == 1 ? .warning : .debug,
                       "fleet: database unavailable (\(reason)); RunOn=one-node jobs are skipped, host jobs run; retry \(failures) in \(retryIn)",
                       metadata: [JobdField.node: .string(node), JobdField.reason: .string(reason)])
        case .clock(let offset, let accepted):
            state = accepted ? "connected as \(node)" : "clock off by \(Self.milliseconds(offset)), not claiming"
            logger.log(level: accepted ? .notice : .error,
                       accepted ? "fleet: the clock is within MaxClockSkewSec= of the database's again (\(Self.milliseconds(offset)))"
                           : "fleet: this node's clock is \(Self.milliseconds(offset)) from the database's, more than MaxClockSkewSec=: it claims no elapse until it is set right",
                       metadata: [JobdField.node: .string(node)])
        case .lost(let claims):
            for claim in claims {
                logger.warning("fleet: run \(claim.runID) of \(claim.key.job) on node \(claim.node) is lost: its lease lapsed",
                               metadata: [JobdField.job: .string(claim.key.job), JobdField.runID: .string(claim.runID),
                                          JobdField.result: .string(RunResult.lost.rawValue), JobdField.node: .string(claim.node),
                                          JobdField.elapseUSec: .string(String(claim.key.elapse.microseconds))])
            }
            return claims
        case .pruned(let count):
            let retention = settings.map { "\($0.retention)" } ?? "MaxRetentionSec="
            logger.info("fleet: removed \(count) claim(s) of elapses older than \(retention) (MaxRetentionSec=; each job's latest claim stays)",
                        metadata: [JobdField.node: .string(node)])
        }
        return []
    }

    private static func milliseconds(_ microseconds: Int64) -> String {
        let value = Double(microseconds) / 1_000
        return (value >= 0 ? "+" : "") + String(Int64(value.rounded())) + "ms"
    }
}

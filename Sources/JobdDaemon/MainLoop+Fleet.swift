import JobdCalendar
import JobdConfig
import JobdFleet
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
import SystemdKit

/// Fleet jobs (`RunOn=one-node`): a timer run (or its retry) is started only after this node claimed
/// its elapse in the fleet's database. The claim runs off the main loop; its verdict comes back as
/// an event, and either starts the run or ends it as a `run.skip` (`claimed-by NODE`,
/// `fleet-unavailable`, `clock-skew`, `no-fleet`). Host jobs never wait for the database.
extension MainLoop {
    /// The fleet's claims (`[Fleet]` in jobd.conf at start), if jobd has a fleet.
    var fleet: (any FleetClaims)? { context.fleet }

    /// Claims the request's elapse off the main loop; the verdict comes back as `.fleetClaimed`.
    func claim(_ request: RunRequest) {
        let post = context.post
        guard let fleet, let elapse = request.scheduledElapse else {
            post(.fleetClaimed(request, .unavailable(reason: "no-fleet")))
            return
        }
        let key = ClaimKey(job: request.job, elapse: elapse, attempt: request.attempt)
        fleet.claim(key, for: request) { post(.fleetClaimed(request, $0)) }
    }

    /// A claim's verdict: the run starts, or leaves the admission as skipped.
    func claimed(_ request: RunRequest, _ verdict: ClaimVerdict) {
        let inFlight = admission.runsInFlight(of: request.job).contains { $0.request.runID == request.runID }
        switch verdict {
        case .won:
            fleetStatus.lastNode[request.job] = fleet?.settings.node
            if inFlight, !stopping, admission.definition(of: request.job) != nil {
                start(request, claimed: true)
                return
            }
            // Claimed, but jobd is stopping (or a reload removed the job meanwhile): the claim
            // ends without a run, and the run leaves the admission.
            fleet?.finish(runID: request.invocationID, result: RunResult.stopped.rawValue, endedAt: nil)
        case .taken(let node):
            fleetStatus.lastNode[request.job] = node
        case .unavailable:
            break
        }
        perform(admission.startDeclined(job: request.job, runID: request.runID,
                                        reason: verdict.skipReason ?? (stopping ? "stopping" : "job-removed"), now: now))
    }

    /// A run ended: its claim, if this node holds one, records the result (whatever the job's
    /// definition says now: a reload may have removed it meanwhile), with the time a run its fence
    /// stopped really ended.
    func fleetRunEnded(_ outcome: RunOutcome) {
        fleet?.finish(runID: outcome.invocationID, result: outcome.result.rawValue,
                      endedAt: outcome.fencedEnd.map(RealtimeInstant.init(microseconds:)))
    }

    /// What the fleet link reports: said in the journal and `STATUS=`; lost runs may be retried here.
    func fleetNotice(_ notice: FleetLink.Notice) {
        for claim in fleetStatus.heard(notice, settings: fleet?.settings, logger: logger) {
            perform(admission.lostElsewhere(job: claim.key.job, elapse: claim.key.elapse, attempt: claim.key.attempt, now: now))
        }
        notifier.send(.status(status))
    }
}

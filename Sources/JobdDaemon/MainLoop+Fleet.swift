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

    /// A claim's verdict: the run starts, or leaves the admission as skipped.
    func claimed(_ request: RunRequest, _ verdict: ClaimVerdict) {
        let startable = !stopping && admission.definition(of: request.job) != nil
            && admission.runsInFlight(of: request.job).contains { $0.request.runID == request.runID }
        switch fleetStatus.claimed(verdict, job: request.job, node: fleet?.settings.node, startable: startable, stopping: stopping) {
        case .start(let token):
            start(request, claimed: true, fenceToken: token)
        case .decline(let reason, let releasesClaim):
            if releasesClaim { fleet?.finish(runID: request.invocationID, result: RunResult.stopped.rawValue, endedAt: nil) }
            perform(admission.startDeclined(job: request.job, runID: request.runID, reason: reason, now: now))
        }
    }

    /// What the fleet link reports: said in the journal and `STATUS=`; lost runs may be retried here.
    func fleetNotice(_ notice: FleetLink.Notice) {
        for claim in fleetStatus.heard(notice, settings: fleet?.settings, logger: logger) {
            perform(admission.lostElsewhere(job: claim.key.job, elapse: claim.key.elapse, attempt: claim.key.attempt, now: now))
        }
        statusChanged()
    }
}

import JobdHost
import JobdConfig
import JobdControl
import JobdHandover
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
import SystemdKit

extension MainLoop {
    /// Performs what the run admission decided, in order, then arms the retry timer for the next
    /// pending retry.
    func perform(_ actions: [RunAdmission.Action]) {
        for action in actions {
            action.log(to: logger, admission: admission, budget: context.launcher.outputBudget)
            switch action {
            case .start(let request):
                start(request)
            case .skip(let request, let reason), .drop(let request, let reason):
                runWaiters.skipped(request, reason: reason)
                if request.cause == .timer {
                    scheduler.elapseSkipped(job: request.job, reason: reason)
                    metricsChanged()
                }
            case .wait(_, .slot), .wait(_, .userSlot):
                settle()
                statusChanged()
            case .stop(let job, let reason):
                context.launcher.stop(job: job, reason: reason)
            case .stopAll(let reason):
                context.launcher.stopAll(reason: reason, within: settings.stopTimeoutMax)
            case .wait(_, .overlap), .retry, .cancelRetry:
                break
            }
        }
        if !stopping, !actions.isEmpty { retryTimer.arm(at: admission.nextRetry) }
    }

    /// Starts the run; a fleet job's run claims its elapse first, and starts with `claimed` once it
    /// holds it, with the claim's fencing token (`JOBD_FENCE`).
    func start(_ request: RunRequest, claimed: Bool = false, fenceToken: Int64? = nil) {
        guard let definition = admission.definition(of: request.job) else { return }
        // A Condition…= that does not hold skips the run, before any claim (systemd.unit(5)).
        if !claimed, let unmet = context.launcher.unmetCondition(of: definition) {
            logger.conditionUnmet(unmet, of: request, budget: context.launcher.outputBudget)
            perform(admission.startDeclined(job: request.job, runID: request.runID, reason: "condition", now: now))
            return
        }
        if !claimed, request.claims(definition) { return context.claim(request) }
        scheduler.runStarted(job: request.job, cause: request.cause.rawValue, now: now)
        context.store.runStarted(RunInFlightRecord(invocationID: request.invocationID, job: request.job, cause: request.cause.rawValue,
                                                   startUSec: wallNowUSec, owningUID: request.owningUID,
                                                   claim: claimed ? heldClaim(of: request) : nil))
        let (post, clock) = (context.post, context.clocks.monotonic)
        burstTrim.started()
        context.launcher.launch(
            definition, as: request, context: request.environment(fenceToken: fenceToken),
            fields: request.launchFields(claimedBy: claimed ? fleet?.settings.node : nil), sendmail: settings.sendmail,
            fence: claimed ? fleet?.fence(ofRun: request.invocationID) : nil
        ) { post(.runFinished($0, finished: clock())) }
    }

    /// A run ended: answer who waited for it, record it for the schedule, and let the admission
    /// decide what follows (a retry, `OnFailure=`/`OnSuccess=` jobs, what waited for it).
    func runEnded(_ outcome: RunOutcome, finished: MonotonicInstant) {
        let ended = admission.runEnded(outcome, now: finished)
        runWaiters.ended(outcome, as: ended)
        scheduler.runFinished(outcome, active: admission.isActive(outcome.job), now: finished)
        if outcome.result == .success { succeeded(outcome.job) }
        context.store.saveHistory(of: outcome.job, scheduler.histories[outcome.job])
        context.store.runEnded(outcome.invocationID)
        if burstTrim.ended() { context.trimMemory() }
        metricsChanged()
        context.fleetRunEnded(outcome)
        perform(ended.actions)
        if admission.runsInFlight(of: outcome.job).isEmpty { runWaiters.stopped(outcome.job) }
    }
}

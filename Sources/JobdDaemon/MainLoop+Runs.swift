import JobdConfig
import JobdControl
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
            action.log(to: logger, admission: admission)
            switch action {
            case .start(let request):
                start(request)
            case .skip(let request, let reason), .drop(let request, let reason):
                runWaiters.skipped(request, reason: reason)
            case .wait(_, .slot), .wait(_, .userSlot):
                settle()
                notifier.send(.status(status))
            case .stop(let job, let reason):
                context.launcher.stop(job: job, reason: reason)
            case .stopAll(let reason):
                context.launcher.stopAll(reason: reason)
            case .wait(_, .overlap), .retry, .cancelRetry:
                break
            }
        }
        if !stopping, !actions.isEmpty { retryTimer.arm(at: admission.nextRetry) }
    }

    /// Starts the run; a fleet job's run claims its elapse first, and starts with `claimed` once it holds it.
    func start(_ request: RunRequest, claimed: Bool = false) {
        guard let definition = admission.definition(of: request.job) else { return }
        // A Condition…= that does not hold skips the run, before any claim (systemd.unit(5)).
        if !claimed, let unmet = context.launcher.unmetCondition(of: definition) {
            logger.info("\(request.job): \(unmet) does not hold: run \(request.runID) is skipped",
                        metadata: request.journalFields.mapValues { .string($0) })
            perform(admission.startDeclined(job: request.job, runID: request.runID, reason: "condition", now: now))
            return
        }
        if !claimed, request.claims(definition) {
            claim(request)
            return
        }
        scheduler.runStarted(job: request.job, cause: request.cause.rawValue, now: now)
        let environment = request.triggeredBy?.environment ?? [:]
        var extra = request.journalFields
        extra[JobdField.reason] = nil
        if request.cause != .timer { extra[JobdField.cause] = request.cause.rawValue }
        if claimed, let fleet { extra.merge(request.journalFields(node: fleet.settings.node)) { $1 } }
        let post = context.post
        let fence = claimed ? fleet?.fence(ofRun: request.invocationID) : nil
        context.launcher.launch(definition, as: request, context: environment, fields: extra, sendmail: settings.sendmail, fence: fence) {
            post(.runFinished($0))
        }
    }

    /// A run ended: answer who waited for it, record it for the schedule, and let the admission
    /// decide what follows (a retry, `OnFailure=`/`OnSuccess=` jobs, what waited for it).
    func runEnded(_ outcome: RunOutcome) {
        var report = RunReport(outcome)
        let actions = admission.runEnded(RunEnd(outcome), now: outcome.finished)
        // Who waits hears of the retry the failure was given, and may follow it and what the
        // outcome started.
        var retry: RunRequest?
        var started: [RunRequest] = []
        for action in actions {
            switch action {
            case .retry(let request, _, let delay) where request.job == outcome.job:
                retry = request
                report.retryRunID = request.runID
                report.retryAttempt = request.attempt
                report.retryLimit = admission.definition(of: request.job)?.restart.limit
                report.retryDelayUSec = delay.microseconds
            case .start(let request), .wait(let request, _):
                started.append(request)
            default:
                break
            }
        }
        runWaiters.ended(report, retry: retry, started: started)
        scheduler.runFinished(job: outcome.job, record: JobHistory.LastRun(outcome), active: admission.isActive(outcome.job), now: outcome.finished)
        context.store.saveHistory(of: outcome.job, scheduler.histories[outcome.job])
        metricsChanged()
        fleetRunEnded(outcome)
        perform(actions)
        if admission.runsInFlight(of: outcome.job).isEmpty { runWaiters.stopped(outcome.job) }
    }
}

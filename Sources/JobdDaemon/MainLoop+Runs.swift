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
            switch action {
            case .start(let request):
                start(request)
            case .skip(let request, let reason):
                logger.event(.runSkip, level: .notice, "\(request.job) was not run (\(request.cause.rawValue)): \(reason)",
                             fields(of: request).merging([JobdField.reason: reason]) { $1 })
                answer(request, skipped: reason)
            case .wait(let request, .overlap(let replacing)):
                logger.event(.runWait, "run \(request.runID) of \(request.job) waits for the run in flight to end"
                             + (replacing ? ", which is being stopped (Overlap=replace)" : " (Overlap=queue)"),
                             fields(of: request).merging([JobdField.reason: "overlap"]) { $1 })
            case .wait(let request, .slot):
                logger.event(.runWait, "run \(request.runID) of \(request.job) waits for a free slot "
                             + "(MaxConcurrentRuns=\(admission.maxConcurrentRuns ?? 0), \(admission.running) running)",
                             fields(of: request).merging([JobdField.reason: "max-concurrent-runs"]) { $1 })
                notifier.send(.status(status))
            case .stop(let job, let reason):
                context.launcher.stop(job: job, reason: reason)
            case .stopAll(let reason):
                context.launcher.stopAll(reason: reason)
            case .drop(let request, let reason):
                logger.event(.runSkip, level: .notice, "run \(request.runID) of \(request.job) will not start: \(reason)",
                             fields(of: request).merging([JobdField.reason: reason]) { $1 })
                answer(request, skipped: reason)
            case .retry(let request, _, let delay):
                let limit = admission.definition(of: request.job)?.restart.limit ?? request.attempt
                logger.event(.runRetry, level: .notice,
                             "\(request.job) failed; retry \(request.attempt) of \(limit) in \(delay) as run \(request.runID)",
                             fields(of: request).merging([JobdField.attempt: "\(request.attempt)/\(limit)"]) { $1 })
            case .cancelRetry(let request, let reason):
                logger.event(.runSkip, level: .notice, "retry \(request.attempt) of \(request.job) cancelled: \(reason)",
                             fields(of: request).merging([JobdField.reason: reason]) { $1 })
            }
        }
        if !stopping, !actions.isEmpty { retryTimer.arm(at: admission.nextRetry) }
    }

    /// The journal fields of a run that was asked for.
    func fields(of request: RunRequest) -> [String: String] {
        var fields = [JobdField.job: request.job, JobdField.run: String(request.runID), JobdField.runID: request.invocationID]
        if let by = request.triggeredBy {
            fields[JobdField.triggeredBy] = by.job
            fields[JobdField.triggeredByRunID] = by.invocationID
        }
        return fields
    }

    /// Starts the run; a fleet job's run claims its elapse first, and starts with `claimed` once it holds it.
    func start(_ request: RunRequest, claimed: Bool = false) {
        guard let definition = admission.definition(of: request.job) else { return }
        if !claimed, needsClaim(request, definition) {
            claim(request)
            return
        }
        scheduler.runStarted(job: request.job, cause: request.cause.rawValue, now: now)
        let environment = request.triggeredBy?.environment ?? [:]
        var extra = fields(of: request)
        extra[JobdField.reason] = nil
        if request.cause != .timer { extra[JobdField.cause] = request.cause.rawValue }
        if claimed { extra.merge(fleetFields(of: request)) { $1 } }
        let post = context.post
        context.launcher.launch(definition, as: request, context: environment, fields: extra, sendmail: settings.sendmail) {
            post(.runFinished($0))
        }
    }

    /// A client waiting for this run hears that it will not run.
    private func answer(_ request: RunRequest, skipped reason: String) {
        runWaiters.skipped(request, reason: reason)
    }

    /// A run ended: answer who waited for it, record it for the schedule, and let the admission
    /// decide what follows (a retry, `OnFailure=`/`OnSuccess=` jobs, what waited for it).
    func runEnded(_ outcome: RunOutcome) {
        let termination = outcome.termination
        var report = RunReport(
            job: outcome.job, runID: outcome.runID, exitCode: termination.exitCode, exitStatus: termination.exitStatus,
            shellStatus: termination.shellStatus, succeeded: outcome.succeeded)
        report.result = outcome.result.rawValue
        report.invocationID = outcome.invocationID
        report.reason = termination.startFailure
        let duration = TimeSpan(microseconds: UInt64(max(0, outcome.finished.duration(since: outcome.started).nanosecondsSaturated / 1_000)))
        let actions = admission.runEnded(RunEnd(
            runID: outcome.runID, job: outcome.job, result: outcome.result, exitCode: termination.exitCode,
            exitStatus: termination.exitStatus), now: outcome.finished)
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
        var record = JobHistory.LastRun(
            result: outcome.result, exitCode: termination.exitCode, exitStatus: termination.exitStatus,
            outcome: termination.description, duration: duration, invocationID: outcome.invocationID)
        record.shellStatus = termination.shellStatus
        scheduler.runFinished(job: outcome.job, record: record, now: outcome.finished)
        context.store.saveHistory(of: outcome.job, scheduler.histories[outcome.job])
        metricsChanged()
        fleetRunEnded(outcome)
        perform(actions)
        if admission.runsInFlight(of: outcome.job).isEmpty, let waiters = stopWaiters.removeValue(forKey: outcome.job) {
            for waiter in waiters {
                waiter.finish(with: ControlResponse(type: .stopFinished, message: "every run of \(outcome.job) has ended"))
            }
        }
    }
}

import JobdCalendar
import JobdConfig
import JobdLogging
import JobdScheduler
import JobdTimers
import Logging

/// `ExpectSuccessWithinSec=`: the executor around ``SuccessDeadlines``. The switches count on the
/// wall clock (a last success outlives jobd); one timer wakes the loop at the earliest deadline,
/// worked out again at every load, success and wall clock step, so an alarm is never early.
extension MainLoop {
    /// At start and after each reload: the switches of the jobs that have one, counted from their
    /// last success (kept across restarts), else from when the job entered the configuration.
    func configureSuccessDeadlines() {
        var expectations: [String: SuccessDeadlines.Expectation] = [:]
        for definition in generation.jobs {
            guard let span = definition.expectSuccessWithin else { continue }
            let history = scheduler.histories[definition.name]
            expectations[definition.name] = SuccessDeadlines.Expectation(
                span: span, lastSuccess: history?.lastSuccessRealtime,
                entered: history?.scheduledSinceRealtime ?? scheduler.daemonStartRealtime)
        }
        if expectations.isEmpty, successDeadlines.watches.isEmpty { return }
        successDeadlines.configure(expectations, now: context.clocks.realtime())
        checkSuccessDeadlines()
    }

    /// A run of `job` succeeded: its switch counts from this success, and an alarm is cleared.
    func succeeded(_ job: String) {
        guard let success = scheduler.histories[job]?.lastSuccessRealtime else { return }
        performOverdue(successDeadlines.succeeded(job, at: success))
    }

    /// Raises the alarms that are due, and arms the timer for the next deadline.
    func checkSuccessDeadlines() {
        guard !stopping else { return }
        performOverdue(successDeadlines.due(now: context.clocks.realtime()))
    }

    private func performOverdue(_ actions: [SuccessDeadlines.Action]) {
        for action in actions {
            switch action {
            case .alarm(let job, let deadline, let lastSuccess):
                raiseAlarm(job, deadline: deadline, lastSuccess: lastSuccess)
            case .cleared(let job, let deadline, let success):
                logger.event(.jobOverdueCleared, level: .notice, "job \(job) succeeded again: no longer overdue", [
                    JobdField.job: job, JobdField.deadlineUSec: String(deadline.microseconds),
                    JobdField.lastSuccessUSec: String(success.microseconds),
                ])
            }
        }
        if !actions.isEmpty { metricsChanged() }
        guard !stopping else { return }
        let wallNow = wallNowUSec
        overdueTimer.arm(at: successDeadlines.nextDeadline.map { now + .microseconds(max(0, $0.microseconds - wallNow)) })
    }

    /// `job.overdue`, the job's `OnFailure=` jobs, and a mail to its `MailTo=`.
    private func raiseAlarm(_ job: String, deadline: RealtimeInstant, lastSuccess: RealtimeInstant?) {
        guard let definition = admission.definition(of: job) else { return }
        let span = definition.expectSuccessWithin.map(String.init(describing:)) ?? "?"
        var fields = [JobdField.job: job, JobdField.deadlineUSec: String(deadline.microseconds)]
        if let lastSuccess { fields[JobdField.lastSuccessUSec] = String(lastSuccess.microseconds) }
        let since = lastSuccess == nil ? "it never succeeded since it entered the configuration" : "no run succeeded since its last success"
        logger.event(.jobOverdue, level: .warning, "job \(job) is overdue: \(since) within ExpectSuccessWithinSec=\(span)", fields)
        perform(admission.overdue(job: job, lastRun: scheduler.histories[job]?.lastRun?.invocationID, now: now))
        if !definition.mailTo.isEmpty {
            context.launcher.mailOverdue(definition, deadline: deadline, lastSuccess: lastSuccess, sendmail: settings.sendmail)
        }
    }
}

package import JobdCalendar
package import JobdConfig

/// `ExpectSuccessWithinSec=`, a dead man's switch per job: when no run of a job has succeeded for
/// its span, the job falls overdue and its alarm is raised, once; the next success clears it and
/// arms the switch again from that success.
///
/// A pure state machine on the wall clock (a last success outlives jobd, a monotonic instant does
/// not): each event returns the actions to perform, and ``nextDeadline`` says when the caller is to
/// call ``due(now:)`` next. It reads no clock and logs nothing.
package struct SuccessDeadlines: Sendable {
    /// One job's switch.
    package struct Watch: Sendable, Equatable {
        package var span: TimeSpan
        /// What the span counts from: the last success, else when the job entered the configuration.
        package var since: RealtimeInstant
        package var lastSuccess: RealtimeInstant?
        /// Whether the alarm was raised for this deadline: not again until a success clears it.
        package var isOverdue = false

        /// When the job falls overdue: `since` plus the span.
        package var deadline: RealtimeInstant {
            let (sum, overflow) = since.microseconds.addingReportingOverflow(Int64(clamping: span.microseconds))
            return RealtimeInstant(microseconds: overflow ? .max : sum)
        }
    }

    /// What the caller is to do.
    package enum Action: Sendable, Equatable {
        /// Raise the job's alarm: log `job.overdue`, start its `OnFailure=` jobs, mail `MailTo=`.
        case alarm(job: String, deadline: RealtimeInstant, lastSuccess: RealtimeInstant?)
        /// The overdue job succeeded at `success`: log `job.overdue-cleared`.
        case cleared(job: String, deadline: RealtimeInstant, success: RealtimeInstant)
    }

    /// What a job's configuration and history say of its switch, at a load.
    package struct Expectation: Sendable, Equatable {
        package var span: TimeSpan
        package var lastSuccess: RealtimeInstant?
        /// When the job entered the configuration: what a job that never succeeded counts from.
        package var entered: RealtimeInstant

        package init(span: TimeSpan, lastSuccess: RealtimeInstant?, entered: RealtimeInstant) {
            (self.span, self.lastSuccess, self.entered) = (span, lastSuccess, entered)
        }
    }

    package private(set) var watches: [String: Watch] = [:]

    package init() {}

    /// The jobs with `ExpectSuccessWithinSec=` at start and after each reload, by name. A job that
    /// keeps its switch keeps what it counts from and whether it is overdue; a changed span that
    /// moves the deadline past `now` makes it no longer overdue (a success alone says "cleared").
    /// The caller calls ``due(now:)`` next: a deadline that already passed raises the alarm then.
    package mutating func configure(_ expectations: [String: Expectation], now: RealtimeInstant) {
        var next: [String: Watch] = [:]
        next.reserveCapacity(expectations.count)
        for (job, expectation) in expectations {
            if var watch = watches[job] {
                watch.span = expectation.span
                watch.isOverdue = watch.isOverdue && watch.deadline <= now
                next[job] = watch
            } else {
                next[job] = Watch(span: expectation.span, since: expectation.lastSuccess ?? expectation.entered,
                                  lastSuccess: expectation.lastSuccess)
            }
        }
        watches = next
    }

    /// A run of `job` succeeded at `at`: its switch counts from then, and an alarm is cleared.
    package mutating func succeeded(_ job: String, at: RealtimeInstant) -> [Action] {
        guard var watch = watches[job] else { return [] }
        let wasOverdue = watch.isOverdue, deadline = watch.deadline
        watch.since = max(watch.since, at)
        watch.lastSuccess = at
        watch.isOverdue = false
        watches[job] = watch
        return wasOverdue ? [.cleared(job: job, deadline: deadline, success: at)] : []
    }

    /// Raises the alarm of every job whose deadline is `now` or earlier and not raised yet, in
    /// the order of their names.
    package mutating func due(now: RealtimeInstant) -> [Action] {
        var actions: [Action] = []
        for (job, watch) in watches.sorted(by: { $0.key < $1.key }) where !watch.isOverdue && watch.deadline <= now {
            watches[job]?.isOverdue = true
            actions.append(.alarm(job: job, deadline: watch.deadline, lastSuccess: watch.lastSuccess))
        }
        return actions
    }

    /// The earliest deadline not passed yet: when ``due(now:)`` is to be called next.
    package var nextDeadline: RealtimeInstant? {
        watches.values.lazy.filter { !$0.isOverdue }.map(\.deadline).min()
    }

    /// Whether `job`'s alarm is raised (the metrics' `jobd_job_overdue`).
    package func isOverdue(_ job: String) -> Bool { watches[job]?.isOverdue ?? false }
}

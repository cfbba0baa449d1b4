package import JobdCalendar

/// One run of a fleet job as the fleet names it: the job, the calendar elapse it is for (the
/// scheduled time, the same on every node whatever its clock says), and the attempt (0 for the
/// elapse's first run, n for its n-th retry). The claims table holds at most one row per key.
package struct ClaimKey: Sendable, Hashable, CustomStringConvertible {
    package var job: String
    package var elapse: RealtimeInstant
    package var attempt: UInt64

    package init(job: String, elapse: RealtimeInstant, attempt: UInt64 = 0) {
        self.job = job
        self.elapse = elapse
        self.attempt = attempt
    }

    package var description: String {
        "\(job) elapse \(elapse.microseconds)" + (attempt > 0 ? " attempt \(attempt)" : "")
    }
}

/// What jobd's schedule will do: `plan`'s elapses, or what `reload-preview` found a reload would
/// change. On the wire through ``write(to:)`` and ``init(reading:)``.
package struct SchedulePreview: Codable, Sendable, Equatable {
    /// One elapse of a job: its run may start from `earliestUSec` to `latestUSec` (wall-clock
    /// microseconds; apart by `RandomizedDelaySec=`).
    package struct Elapse: Codable, Sendable, Equatable {
        package var job: String
        package var earliestUSec: Int64
        package var latestUSec: Int64
        /// The trigger that falls due, as the job file spells it.
        package var trigger: String
        /// `scheduled`, `catch-up` (`Persistent=`), `missed` (served late, at once), or `disabled`
        /// (jobctl disable: the trigger is skipped).
        package var reason: String
        /// What `Restart=` does after a failed run, if anything.
        package var retries: String?

        package init(job: String, earliestUSec: Int64, latestUSec: Int64, trigger: String, reason: String, retries: String? = nil) {
            self.job = job
            self.earliestUSec = earliestUSec
            self.latestUSec = latestUSec
            self.trigger = trigger
            self.reason = reason
            self.retries = retries
        }
    }

    /// One job a reload would add, change or remove, with its next elapse before and after.
    package struct Change: Codable, Sendable, Equatable {
        package var job: String
        /// `added`, `changed` or `removed`.
        package var kind: String
        /// The keys a changed job's file changed.
        package var keys: [String]
        package var before: Elapse?
        package var after: Elapse?

        package init(job: String, kind: String, keys: [String] = [], before: Elapse? = nil, after: Elapse? = nil) {
            (self.job, self.kind, self.keys, self.before, self.after) = (job, kind, keys, before, after)
        }
    }

    /// jobd's wall clock when it answered, microseconds.
    package var nowUSec: Int64
    /// `plan`: the elapses in time order, and whether some job's were left out because they fall
    /// due too often before `fromUSec` to be passed over (absent when none were).
    package var elapses: [Elapse] = []
    package var incomplete: Bool?
    /// `reload-preview`: the jobs a reload would change, by name.
    package var changes: [Change] = []
    /// `reload-preview`: how many jobs it would leave as they are.
    package var kept: Int = 0
    /// `reload-preview`: whether the reload would be accepted (`jobctl reload` exits 0), and its
    /// errors as `jobctl reload` reports them.
    package var accepted: Bool = true
    package var errors: [String] = []

    package init(nowUSec: Int64, elapses: [Elapse] = [], changes: [Change] = [], kept: Int = 0, accepted: Bool = true, errors: [String] = []) {
        self.nowUSec = nowUSec
        self.elapses = elapses
        self.changes = changes
        self.kept = kept
        self.accepted = accepted
        self.errors = errors
    }
}

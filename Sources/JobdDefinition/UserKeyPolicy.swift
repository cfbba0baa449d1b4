/// What a user's own job file may do with one key (``JobFileKey/userPolicy``), which
/// ``UserJobPolicy`` applies and jobd.job(5) lists under USER JOBS.
package enum UserKeyPolicy: Sendable, Hashable {
    /// The key only describes the run, or is entered as the user: any value.
    case free
    /// The key restricts the run, which is safe because a user's run always has
    /// `NoNewPrivileges=yes`: any value.
    case sandbox
    /// The value is checked: it may restrict the run, never raise it above the user.
    case checked(Check)
    /// The value is at most a budget of jobd.conf.
    case bounded(Bound)
    /// A user's job may not set it.
    case rootOnly

    package enum Check: Sendable, Hashable {
        /// `User=`: absent, or the user.
        case owner
        /// `NoNewPrivileges=`: never `no`.
        case noNewPrivileges
        /// Only groups the user is in.
        case memberGroups
        /// Only the user's own jobs, by their names without `USER:`.
        case ownJobs
        /// A priority or scheduling class only lowered.
        case lowerScheduling
        /// A cgroup weight at most the kernel's default.
        case lowerWeight
    }

    package enum Bound: Sendable, Hashable {
        /// At most `DefaultTasksMax=`.
        case tasks
        /// At most `StopTimeoutMaxSec=`, checked on the value the file's read arrives at.
        case stopTimeout
    }

    /// Whether a user's job may set the key at all.
    package var isAllowed: Bool { self != .rootOnly }
}

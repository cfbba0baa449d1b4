/// What a SIGTERM means to jobd (issue 36): the end of the service, or a restart that the runs in
/// flight should live through. Only systemd knows which: the job its unit has at that moment.
package enum StopKind: Sendable, Hashable {
    /// Stop every run, as `systemctl stop` and a shutdown want.
    case stop
    /// Leave the runs running, record them, and let the next jobd adopt them.
    case handover

    /// The kind for the unit's job type, as systemd's `org.freedesktop.systemd1.Job.JobType` names it
    /// (`nil` when there is no job or it could not be asked). Only a restart hands over: `systemctl
    /// restart`, `try-restart`, and `reload-or-restart` or `try-reload-or-restart` on a unit with no
    /// reload command, which systemd turns into those two. Anything else, or not knowing, stops: a
    /// run left behind by a jobd that will not come back would have nobody to record its end.
    package static func decide(jobType: String?) -> StopKind {
        switch jobType {
        case "restart", "try-restart": .handover
        default: .stop
        }
    }
}

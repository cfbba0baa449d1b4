package import JobdConfig

/// How many tasks (processes and threads) the runs may hold, decided from jobd's settings and its
/// own cgroup's limit: pure, so that every case is tested without a cgroup. Runs live in a cgroup
/// `runs` of their own whose `pids.max` leaves jobd room for its threads, and each run's cgroup has
/// the run's `TasksMax=` (issue 26: one fork-happy job must not starve jobd or the other jobs).
package struct TaskBudget: Sendable, Equatable {
    /// The limit of every run together (`runs/pids.max`); `nil` is none.
    package var runs: UInt64?
    /// A run's limit when its job has no `TasksMax=` (`DefaultTasksMax=`); `nil` is none.
    package var defaultPerRun: UInt64?
    /// The system's maximum, which percentages are shares of.
    package var systemMaximum: UInt64
    /// The limit of all one user's runs together (`runs/user-UID/pids.max`): `DefaultTasksMax=`, as
    /// each of their runs may have at most that, and at most half of ``runs``, so that no user's
    /// runs can take the tasks root's need; `nil` is none.
    package var perUser: UInt64? {
        let half = runs.map { Swift.max(1, $0 / 2) }
        guard let perRun = defaultPerRun else { return half }
        return half.map { Swift.min(perRun, $0) } ?? perRun
    }

    /// `own`: jobd's own cgroup's `pids.max` (`TasksMax=` of jobd.service), `nil` when it has none.
    package init(settings: DaemonSettings, own: UInt64?, systemMaximum: UInt64) {
        self.systemMaximum = systemMaximum
        defaultPerRun = settings.defaultTasksMax.resolved(systemMaximum: systemMaximum)
        if let configured = settings.runsTasksMax {
            runs = configured.resolved(systemMaximum: systemMaximum)
        } else {
            // Without a limit of its own, jobd shares the system's: it keeps its reserve of that.
            let whole = own ?? systemMaximum
            let reserve = DaemonSettings.tasksReserve
            runs = whole > 2 * reserve ? whole - reserve : max(1, whole / 2)
        }
    }

    /// The limit of one run of a job with `tasksMax` (`nil`: the default).
    package func perRun(_ tasksMax: TasksMax?) -> UInt64? {
        tasksMax.map { $0.resolved(systemMaximum: systemMaximum) } ?? defaultPerRun
    }

    /// Why the limits could not be set.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }
}

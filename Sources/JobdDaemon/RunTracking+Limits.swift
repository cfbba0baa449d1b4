import JobdConfig
import JobdRunner
import Logging

/// What runs tracked as they are can be given: a job whose limit cannot be applied is refused at
/// load, and the runs' task limits are set in jobd's cgroup.
extension RunTracking {
    /// `configuration` with each job that asks for what this jobd cannot do moved to the broken
    /// files, with the reason at its line: `TasksMax=`, `MemoryMax=`… where no cgroup or controller
    /// takes them, a sandbox jobd cannot set up, a `Limit…=` above jobd's own hard limit that jobd
    /// may not raise (never a limit or a sandbox silently not applied).
    func applicable(_ configuration: JobdConfiguration, own: OwnLimits) -> JobdConfiguration {
        var configuration = configuration
        configuration.breakJobs { definition in
            (sandboxRefusal(definition).map { [$0] } ?? []) + unapplicable(definition) + own.refusals(definition)
        }
        return configuration
    }

    /// Sets the task limits of the runs (`RunsTasksMax=`, `DefaultTasksMax=`) in jobd's cgroup.
    func limitTasks(_ settings: DaemonSettings, logger: Logger) {
        guard case .cgroups(let cgroup) = self else { return }
        switch cgroup.limitTasks(settings) {
        case .success(let budget):
            let runs = budget.runs.map { "at most \($0) tasks" } ?? "no task limit"
            let each = budget.defaultPerRun.map { "\($0) each by default" } ?? "no limit each by default"
            logger.info("runs hold \(runs) together, \(each) (RunsTasksMax=, DefaultTasksMax=)")
        case .failure(let failure):
            logger.warning("the runs' task limits are not set: \(failure)")
        }
    }
}

extension DaemonSettings {
    /// `UserLogRateLimitBurst=` in each `UserLogRateLimitIntervalSec=`, as the runner's budget takes it.
    var userLogRateLimit: OutputBudget.Limits? {
        userLogRateLimitBurst.map { OutputBudget.Limits(burst: $0, interval: userLogRateLimitInterval) }
    }
}

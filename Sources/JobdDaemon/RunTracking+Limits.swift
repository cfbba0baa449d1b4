import JobdConfig
import JobdRunner
import Logging

/// What runs tracked as they are can be given: a job whose limit cannot be applied is refused at
/// load, and the runs' task limits are set in jobd's cgroup.
extension RunTracking {
    /// `configuration` with each job that asks for what this jobd cannot do moved to the broken
    /// files, with the reason at its line: `TasksMax=` where no pids controller is at hand (never
    /// a limit silently not applied).
    func applicable(_ configuration: JobdConfiguration) -> JobdConfiguration {
        let refusal: String? = switch self {
        case .cgroups(let cgroup): cgroup.tasksLimitRefusal
        case .processGroups(let reason): "runs are tracked by process group, not cgroup (\(reason))"
        }
        guard let refusal else { return configuration }
        var configuration = configuration
        configuration.breakJobs { definition in
            definition.tasksMax == nil ? [] : [ConfigError(
                file: definition.path, line: definition.tasksMaxLine, message: "TasksMax= cannot be applied: \(refusal)",
                hint: "run jobd under its unit (Delegate=yes, with the pids controller), or remove TasksMax=")]
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

import Glibc
package import JobdConfig
import JobdLogging
import Logging

extension SystemRunDriver {
    /// The run's own cgroup where jobd tracks runs by cgroup, with its job's limits. When it cannot
    /// be made, a job that sets a limit (`TasksMax=`, `MemoryMax=`…) fails to start with the reason,
    /// rather than run without it; another is tracked by its process group, with a warning.
    /// A user's own run (`user`: the owner's uid) goes below the user's cgroup, which bounds their runs together.
    package func makeCgroup(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, fields: [String: String], user: UInt32?
    ) -> Result<(cgroup: RunCgroup?, tasksRlimit: ResourceLimit?), PreparationError> {
        placeCgroup(definition, runID: runID, invocationID: invocationID, fields: fields, user: user).map { cgroup in
            (cgroup, userTasksRlimit(definition, cgroup: cgroup))
        }
    }

    private func placeCgroup(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, fields: [String: String], user: UInt32?
    ) -> Result<RunCgroup?, PreparationError> {
        guard case .cgroups(let delegated) = tracking else { return .success(nil) }
        switch delegated.makeRunCgroup(invocationID: invocationID, runID: runID, tasksMax: definition.tasksMax, resources: definition.resourceControl,
                                       user: definition.owningUser == nil ? nil : user) {
        case .success(let cgroup):
            return .success(cgroup)
        case .failure(let refusal):
            if definition.tasksMax != nil || !definition.resourceControl.isEmpty {
                return .failure(PreparationError(description: "its cgroup could not be set up: \(refusal.description)"))
            }
            logger.warning("run \(runID) of \(definition.name) is tracked by its process group: \(refusal.description)",
                           metadata: fields.mapValues { .string($0) })
            return .success(nil)
        }
    }

    /// A user's run's task limit as `RLIMIT_NPROC`, where its cgroup has no `pids.max` to hold it
    /// (runs tracked by process group, or no pids controller); `nil` where one does, or for root's.
    func userTasksRlimit(_ definition: JobDefinition, cgroup: RunCgroup?) -> ResourceLimit? {
        guard let limit = definition.userTasksLimit else { return nil }
        if cgroup != nil, case .cgroups(let delegated) = tracking, delegated.tasksLimitRefusal == nil { return nil }
        return ResourceLimit(soft: limit, hard: limit)
    }

    /// Once the run's leftovers are stopped (or kept): what the run used and how many of its
    /// processes the OOM killer killed, and the cgroup removed, or kept until its last process is gone.
    package func removeCgroup(_ cgroup: RunCgroup, keep: Bool) -> (usage: RunUsage?, oomKills: UInt64) {
        guard case .cgroups(let delegated) = tracking else { return (nil, 0) }
        let usage = cgroup.usage
        let oomKills = cgroup.oomKills
        if keep || !cgroup.remove() { delegated.keep(cgroup) }
        delegated.removeEmptyKept()
        return (usage, oomKills)
    }
}

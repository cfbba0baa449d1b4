import Glibc
import JobdConfig
import JobdLogging
import Logging

extension JobRunner {
    /// The run's own cgroup where jobd tracks runs by cgroup; nil (the run is tracked by its process
    /// group, with a warning) when it cannot be created.
    func makeCgroup(_ definition: JobDefinition, runID: UInt64, invocationID: String, fields: [String: String]) -> RunCgroup? {
        guard case .cgroups(let delegated) = tracking else { return nil }
        switch delegated.makeRunCgroup(invocationID: invocationID, runID: runID, tasksMax: definition.tasksMax) {
        case .success(let cgroup):
            return cgroup
        case .failure(let refusal):
            logger.warning("run \(runID) of \(definition.name) is tracked by its process group: \(refusal.description)",
                           metadata: fields.mapValues { .string($0) })
            return nil
        }
    }

    /// Once the run's leftovers are stopped (or kept): what the run used, and the cgroup removed, or
    /// kept until its last process is gone.
    func finish(_ cgroup: RunCgroup, keep: Bool) -> RunUsage? {
        guard case .cgroups(let delegated) = tracking else { return nil }
        let usage = cgroup.usage
        if keep || !cgroup.remove() { delegated.keep(cgroup) }
        delegated.removeEmptyKept()
        return usage
    }
}

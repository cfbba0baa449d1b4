package import JobdConfig

extension RunTracking {
    /// What in `definition` this jobd cannot apply to its runs, each an error at the key's line:
    /// `TasksMax=` and the resource keys (`MemoryMax=`…) where no cgroup or controller takes them.
    /// A job with any is broken at load (`bad-setting` with the reason), never run without a limit
    /// it asked for.
    package func unapplicable(_ definition: JobDefinition) -> [ConfigError] {
        let resources = definition.resourceControl
        guard definition.tasksMax != nil || !resources.isEmpty else { return [] }
        var refused: [(key: String, line: Int?, reason: String)] = []
        switch self {
        case .processGroups(let reason):
            let refusal = "runs are tracked by process group, not cgroup (\(reason))"
            if definition.tasksMax != nil { refused.append(("TasksMax", definition.tasksMaxLine, refusal)) }
            refused += resources.keys.map { ($0.rawValue, resources.line(of: $0), refusal) }
        case .cgroups(let cgroup):
            if definition.tasksMax != nil, let refusal = cgroup.tasksLimitRefusal { refused.append(("TasksMax", definition.tasksMaxLine, refusal)) }
            refused += cgroup.refusals(resources).map { ($0.key.rawValue, resources.line(of: $0.key), $0.reason) }
        }
        return refused.map { key, line, reason in
            ConfigError(file: definition.path, line: line, message: "\(key)= cannot be applied: \(reason)",
                        hint: "run jobd under its unit (Delegate=yes, with the controller at hand), or remove \(key)=")
        }
    }
}

import JobdLogging
package import Logging

/// How jobd finds and stops the processes of its runs, decided once at start.
package enum RunTracking: Sendable {
    /// Each run in a cgroup of its own, in the subtree systemd delegated to jobd.
    case cgroups(DelegatedCgroup)
    /// Each run in a process group of its own (its own session); `reason` says why not cgroups. A
    /// process that starts a session or group of its own escapes it (see ``ProcessGroup``).
    case processGroups(reason: String)

    /// Looks for a delegated cgroup and takes it over; falls back to process groups, with the
    /// reason, at any failure. Logs which it uses, once.
    package static func detect(logger: Logger) -> RunTracking {
        switch DelegatedCgroup.setUp() {
        case .success(let cgroup):
            let legacy = DelegatedCgroup.legacyControllers.filter { cgroup.legacy[$0] != nil }
            let controllers = (cgroup.controllers.isEmpty ? "none" : cgroup.controllers.joined(separator: " "))
                + (legacy.isEmpty ? "" : "; on cgroup v1: " + legacy.joined(separator: " "))
            logger.notice("runs are tracked by cgroup: each run in its own cgroup under \(cgroup.path) (controllers: \(controllers))",
                          metadata: [JobdField.tracking: "cgroup", JobdField.cgroup: .string(cgroup.path)])
            return .cgroups(cgroup)
        case .failure(let refusal):
            let escapes = "a process that starts a session or process group of its own escapes its run"
            logger.info("runs are tracked by process group, not cgroup: \(refusal.description); \(escapes)", metadata: [JobdField.tracking: "process-group"])
            return .processGroups(reason: refusal.description)
        }
    }

    /// Where it is `cgroup` or `process-group` (`JOBD_TRACKING=`).
    package var name: String {
        switch self {
        case .cgroups: "cgroup"
        case .processGroups: "process-group"
        }
    }
}

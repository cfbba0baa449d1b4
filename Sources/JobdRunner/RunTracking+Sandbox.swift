package import Glibc
package import JobdConfig

extension RunTracking {
    /// Why this jobd cannot give `definition` the sandbox it asks for, as an error at the key's
    /// line; `nil` when it can (or it asks for none). The sandbox is set up by `jobd-cgexec` as
    /// root, and `PrivateDevices=` and `ProtectClock=` need the run's cgroup v2 for their device
    /// policy: never a sandbox silently weaker than the job file says.
    package func sandboxRefusal(_ definition: JobDefinition, euid: uid_t? = nil) -> ConfigError? {
        let sandbox = definition.sandbox
        guard !sandbox.isDefault else { return nil }
        if (euid ?? geteuid()) != 0 {
            return ConfigError(file: definition.path, line: nil, message: "the job's sandboxing keys cannot be applied: jobd does not run as root",
                               hint: "run jobd as root (its unit does), or remove the job's sandboxing keys")
        }
        if sandbox.needsDeviceCgroup, case .processGroups(let reason) = self {
            let key = sandbox.privateDevices ? "PrivateDevices=" : "ProtectClock="
            return ConfigError(file: definition.path, line: definition.sandboxDeviceLine,
                               message: "\(key) cannot be applied: its device policy needs the run's cgroup, and runs are tracked by process group (\(reason))",
                               hint: "run jobd under its unit (Delegate=yes), or remove \(key)")
        }
        return nil
    }
}

import CBPFDevices
package import Glibc
package import JobdConfig

extension RunTracking {
    /// Why this jobd cannot give `definition` the sandbox it asks for, as an error at the key's
    /// line; `nil` when it can (or it asks for none). The sandbox is set up by `jobd-cgexec` as
    /// root, and `PrivateDevices=` and `ProtectClock=` need the run's cgroup v2 for their device
    /// policy: never a sandbox silently weaker than the job file says.
    package func sandboxRefusal(_ definition: JobDefinition, euid: Glibc.uid_t? = nil) -> ConfigError? {
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

    /// Why the kernel will not load a run's device policy (a container's seccomp filter refusing
    /// bpf(2)), or `nil` when it does: checked once, as systemd 252's bpf_devices_supported().
    static let devicePolicyRefusal: String? = {
        let code = jobd_bpf_device_program_error()
        return code == 0 ? nil : "the kernel refuses BPF device programs (bpf: \(String(cString: strerror(code))))"
    }()

    /// A warning for each of `jobs` whose runs will go without their device policy, as systemd's
    /// services do where bpf(2) is refused (jobd-cgexec warns in each such run's output too).
    package func devicePolicyWarnings(_ jobs: [JobDefinition]) -> [String] {
        guard case .cgroups = self else { return [] }  // without cgroups such a job is refused at load
        let affected = jobs.filter(\.sandbox.needsDeviceCgroup)
        guard !affected.isEmpty, let refusal = Self.devicePolicyRefusal else { return [] }
        return affected.map { definition in
            let key = definition.sandbox.privateDevices ? "PrivateDevices=" : "ProtectClock="
            return "\(definition.path)\(definition.sandboxDeviceLine.map { ":\($0)" } ?? ""): warning: \(key) is applied without its device "
                + "policy: \(refusal); its runs keep the rest of their sandbox, as a systemd service's would"
        }
    }
}

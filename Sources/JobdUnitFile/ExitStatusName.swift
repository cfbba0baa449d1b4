import CJobdExec

/// The names systemd gives exit statuses (`systemd-analyze exit-status`): libc's, the LSB's, BSD's
/// sysexits and systemd's own, which `SuccessExitStatus=` and `RestartPreventExitStatus=` take in
/// place of a number (`SuccessExitStatus=DATAERR`, as Debian's systemd-tmpfiles-clean.service has it).
/// The statuses jobd-cgexec exits with are its header's (Sources/CJobdExec/include/exit.h).
package enum ExitStatusName {
    package static let statuses: [String: Int32] = [
        "SUCCESS": 0, "FAILURE": 1,
        "INVALIDARGUMENT": 2, "NOTIMPLEMENTED": 3, "NOPERMISSION": 4, "NOTINSTALLED": 5, "NOTCONFIGURED": 6, "NOTRUNNING": 7,
        "USAGE": 64, "DATAERR": 65, "NOINPUT": 66, "NOUSER": 67, "NOHOST": 68, "UNAVAILABLE": 69, "SOFTWARE": 70,
        "OSERR": 71, "OSFILE": 72, "CANTCREAT": 73, "IOERR": 74, "TEMPFAIL": 75, "PROTOCOL": 76, "NOPERM": 77, "CONFIG": 78,
        "CHDIR": trampoline(EXIT_CHDIR), "NICE": trampoline(EXIT_NICE), "FDS": 202, "EXEC": trampoline(EXIT_EXEC), "MEMORY": 204,
        "LIMITS": trampoline(EXIT_LIMITS), "OOM_ADJUST": trampoline(EXIT_OOM_ADJUST), "SIGNAL_MASK": 207, "STDIN": 208, "STDOUT": 209, "CHROOT": 210,
        "IOPRIO": trampoline(EXIT_IOPRIO), "TIMERSLACK": 212, "SECUREBITS": 213, "SETSCHEDULER": trampoline(EXIT_SETSCHEDULER),
        "CPUAFFINITY": 215, "GROUP": trampoline(EXIT_GROUP), "USER": trampoline(EXIT_USER), "CAPABILITIES": trampoline(EXIT_CAPABILITIES),
        "CGROUP": trampoline(EXIT_CGROUP), "SETSID": 220, "CONFIRM": 221, "STDERR": 222, "PAM": 224, "NETWORK": trampoline(EXIT_NETWORK),
        "NAMESPACE": trampoline(EXIT_NAMESPACE), "NO_NEW_PRIVILEGES": trampoline(EXIT_NO_NEW_PRIVILEGES), "SECCOMP": trampoline(EXIT_SECCOMP),
        "SELINUX_CONTEXT": 229, "PERSONALITY": 230, "APPARMOR": 231, "ADDRESS_FAMILIES": 232, "RUNTIME_DIRECTORY": 233, "CHOWN": 235,
        "SMACK_PROCESS_LABEL": 236, "KEYRING": trampoline(EXIT_KEYRING),
        "STATE_DIRECTORY": 238, "CACHE_DIRECTORY": 239, "LOGS_DIRECTORY": 240, "CONFIGURATION_DIRECTORY": 241,
        "NUMA_POLICY": 242, "CREDENTIALS": 243, "BPF": 244, "EXCEPTION": 255,
    ]

    /// A status of jobd-cgexec's, from its header.
    package static func trampoline(_ status: Int) -> Int32 { Int32(status) }

    /// The status a word names: a number from 0 to 255, or one of ``statuses``.
    package static func status(_ word: String) -> Int32? {
        if let status = Int32(word) { return (0...255).contains(status) ? status : nil }
        return statuses[word]
    }
}

/// Hints for what was pasted from elsewhere into a job file: a systemd unit's sections and keys,
/// or a crontab line, pointing to the `jobctl import` command that converts it.
package enum ForeignSyntax {
    /// systemd's timer keys that jobd names differently.
    static let systemdKeys: [String: String] = [
        "OnBootSec": "did you mean 'OnStartupSec='? jobd counts it from its own start, systemd's OnBootSec= from the boot",
        // systemd's older resource keys, which it converts to the newer ones jobd takes.
        "MemoryLimit": "jobd does not support MemoryLimit=, which systemd deprecates: write MemoryMax=, which systemd 252 applies the same way",
        "CPUShares": "jobd does not support CPUShares=, which systemd deprecates: write CPUWeight= (the shares × 100 / 1024; 1024 is 100)",
        "BlockIOWeight": "jobd does not support BlockIOWeight=, which systemd deprecates: write IOWeight= (the weight / 5; 500 is 100)",
        "CPUQuotaPeriodSec": "jobd does not support CPUQuotaPeriodSec=: CPUQuota= counts over systemd's default period of 100 ms",
    ]

    /// systemd's service and unit keys that jobd does not read, with the nearest way to their effect.
    static let unsupported: [String: String] = [
        "Type": "every job runs as a oneshot service does: remove Type=",
        "DynamicUser": "jobd allocates no users: make a system user (adduser --system NAME) and name it in User=",
        "StandardOutput": "a run's output goes to the journal under the job's name (journalctl -t JOB); to write it elsewhere, redirect in the command: ExecStart=/bin/sh -c '… >>FILE'",
        "StandardError": "a run's output goes to the journal under the job's name (journalctl -t JOB); to write it elsewhere, redirect in the command: ExecStart=/bin/sh -c '… 2>>FILE'",
        "ExecStartPre": "join the commands into one: ExecStart=/bin/sh -c 'first && second' (jobctl import timer does so)",
        "ExecStartPost": "join the commands into one: ExecStart=/bin/sh -c 'first && second' (jobctl import timer does so)",
        "ExecStop": "jobd stops a run with SIGTERM, then SIGKILL after TimeoutStopSec=; a cleanup belongs in the command (a trap in a shell script)",
        "TimeoutSec": "write TimeoutStartSec= (the run's time limit) and TimeoutStopSec=",
        "PassEnvironment": "a job gets no environment of jobd's: write the values with Environment= or EnvironmentFile=",
        "RemainAfterExit": "a job's run ends with its command: remove RemainAfterExit=",
        "RestrictAddressFamilies": "PrivateNetwork=yes cuts a run off every network but its own loopback",
        "IPAddressDeny": "PrivateNetwork=yes cuts a run off every network but its own loopback",
        "IPAddressAllow": "PrivateNetwork=yes cuts a run off every network but its own loopback",
        "SystemCallArchitectures": "jobd's SystemCallFilter= filters the native architecture's calls and kills a 32-bit program under a filter, as SystemCallArchitectures=native would",
        "MemoryAccounting": "jobd measures every run's memory, CPU and I/O in its cgroup (run.exit's usage fields): remove it",
        "CPUAccounting": "jobd measures every run's memory, CPU and I/O in its cgroup (run.exit's usage fields): remove it",
        "IOAccounting": "jobd measures every run's memory, CPU and I/O in its cgroup (run.exit's usage fields): remove it",
        "TasksAccounting": "jobd measures every run's memory, CPU and I/O in its cgroup (run.exit's usage fields): remove it",
    ]

    /// The hint for an unknown key that is systemd's, or for a crontab line with a `=` in it.
    package static func hint(forKey key: String, value: String) -> String? {
        if let hint = systemdKeys[key] { return hint }
        if let way = unsupported[key] { return "jobd does not support \(key)=; \(way)" }
        if key.hasPrefix("Condition") || key.hasPrefix("Assert") {
            return "jobd does not support \(key)=; test it at the start of the command: "
                + "ExecStart=/bin/sh -c 'test -e /path || exit 0; exec COMMAND' (exit 1 for an Assert…=)"
        }
        if ["After", "Before", "Requires", "Wants", "BindsTo", "PartOf", "Requisite", "Conflicts", "RequiresMountsFor"].contains(key) {
            return "jobd does not support \(key)=: jobs are not ordered against units; jobd starts after its own unit's "
                + "dependencies, and a job that must follow another is started by that job's OnSuccess="
        }
        return looksLikeCronLine(Substring(key + "=" + value)) ? cronHint : nil
    }

    /// The hint for a section of a systemd unit, `nil` for other sections.
    package static func sectionHint(_ section: String) -> String? {
        switch section {
        case "Timer", "Service", "Unit", "Install":
            "this is a systemd timer unit: try 'jobctl import timer UNIT.timer' to convert it with its service"
        default: nil
        }
    }

    package static let cronHint = "this looks like a crontab line: try 'jobctl import cron FILE' to convert it"

    /// Whether `text` starts like a crontab line: five schedule fields (or an `@` name) and a command.
    package static func looksLikeCronLine(_ text: Substring) -> Bool {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if let first = words.first, first.hasPrefix("@") {
            return words.count >= 2 && ["@reboot", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]
                .contains(String(first))
        }
        return words.count >= 6 && words.prefix(5).allSatisfy { field in
            field.allSatisfy { $0.isASCII && ($0.isNumber || $0.isLetter || "*,-/".contains($0)) }
                && field.contains { $0.isNumber || $0 == "*" || $0.isLetter }
        } && words.prefix(5).contains { word in word.contains { $0.isNumber || $0 == "*" } }
    }
}

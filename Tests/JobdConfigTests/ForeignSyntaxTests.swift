import JobdConfig
import Testing

/// What a systemd unit or a crontab line pasted into a job file gets: the error at its line, and a
/// hint naming the key jobd uses or the `jobctl import` command that converts it.
@Suite struct ForeignSyntaxTests {
    let path = "/etc/jobd/jobs.d/pasted.job"

    func errors(_ text: String) -> [String] {
        switch JobFileReader.read(name: "pasted", path: path, text: text) {
        case .success: return []
        case .failure(let errors): return errors.errors.map(\.description)
        }
    }

    @Test func onBootSecPointsToOnStartupSec() {
        #expect(errors("[Job]\nExecStart=/bin/true\nOnBootSec=5min\n") == [
            "\(path):3: error: unknown key 'OnBootSec=' in [Job]\n"
                + "\(path):3: note: did you mean 'OnStartupSec='? jobd counts it from its own start, systemd's OnBootSec= from the boot",
        ])
    }

    @Test(arguments: [("MemoryLimit=1G", "write MemoryMax="), ("CPUShares=512", "write CPUWeight="), ("BlockIOWeight=250", "write IOWeight="),
                      ("CPUQuotaPeriodSec=10ms", "default period of 100 ms")])
    func systemdsOlderResourceKeysPointToTheOnesJobdTakes(line: String, hint: String) {
        let found = errors("[Job]\nExecStart=/bin/true\n\(line)\n")
        #expect(found.count == 1 && found[0].contains("note: jobd does not support \(line.prefix { $0 != "=" })=") && found[0].contains(hint), "\(found)")
    }

    /// A systemd key jobd does not read says so, with the nearest way to its effect; any other
    /// unknown key points to the manual rather than listing ninety keys.
    @Test(arguments: [
        ("ConditionHost=web1", "jobd does not support ConditionHost=; test it at the start of the command"),
        ("AssertKernelVersion=>=6", "jobd does not support AssertKernelVersion=; test it"),
        ("RequiresMountsFor=/var", "jobd does not support RequiresMountsFor=: jobs are not ordered against units"),
        ("DynamicUser=yes", "jobd does not support DynamicUser=; jobd allocates no users: make a system user"),
        ("StandardOutput=file:/x", "jobd does not support StandardOutput=; a run's output goes to the journal"),
        ("Type=oneshot", "jobd does not support Type=; every job runs as a oneshot service does"),
        ("RestrictAddressFamilies=AF_UNIX", "jobd does not support RestrictAddressFamilies=; PrivateNetwork=yes"),
        ("Frobnicate=1", "jobd.job(5) lists every key a job file takes"),
    ])
    func systemdKeysJobdLacksSayWhatToDoInstead(line: String, hint: String) {
        let found = errors("[Job]\nExecStart=/bin/true\n\(line)\n")
        let key = String(line.prefix { $0 != "=" })
        #expect(found.count == 1 && found[0].hasPrefix("\(path):3: error: unknown key '\(key)=' in [Job]\n\(path):3: note: \(hint)"), "\(found)")
        #expect(found.first.map { $0.count < 400 } == true, "a hint, not a list of every key: \(found)")
    }

    @Test func aTimerUnitPointsToJobctlImportTimer() {
        let found = errors("""
            [Unit]
            Description=Daily rotation of log files

            [Timer]
            OnCalendar=daily
            """)
        let hint = "note: this is a systemd timer unit: try 'jobctl import timer UNIT.timer' to convert it with its service"
        #expect(found.contains("\(path):1: error: unknown section [Unit]\n\(path):1: \(hint)"), "\(found)")
        #expect(found.contains("\(path):4: error: unknown section [Timer]\n\(path):4: \(hint)"), "\(found)")
    }

    @Test func aServiceSectionPointsToJobctlImportTimer() {
        let found = errors("[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n[Service]\nType=oneshot\n")
        #expect(found == ["\(path):4: error: unknown section [Service]\n"
                          + "\(path):4: note: this is a systemd timer unit: try 'jobctl import timer UNIT.timer' to convert it with its service"])
    }

    @Test(arguments: [
        "*/5 * * * * /usr/bin/backup --all",
        "0 3 * * mon-fri root cd / && run-parts /etc/cron.daily",
        "@daily /usr/local/bin/rotate",
        "30 2 1,15 * * FOO=bar /usr/bin/report",
    ])
    func aCrontabLinePointsToJobctlImportCron(line: String) {
        let found = errors("[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n\(line)\n")
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.hasPrefix("\(path):4: error: ") == true, "\(found)")
        #expect(found.first?.hasSuffix("\(path):4: note: this looks like a crontab line: try 'jobctl import cron FILE' to convert it") == true,
                "\(found)")
    }

    @Test func aWholeCronLineInCronPointsToJobctlImportCron() {
        let found = errors("[Job]\nExecStart=/bin/true\nCron=*/5 * * * * root /usr/bin/backup\n")
        #expect(found.first?.hasSuffix("\(path):3: note: Cron= takes the schedule only; "
                                       + "this looks like a crontab line: try 'jobctl import cron FILE' to convert it") == true, "\(found)")
    }

    @Test(arguments: ["ExecStart /bin/true", "5 minutes past"])
    func otherMalformedLinesGetNoCronHint(line: String) {
        let found = errors("[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n\(line)\n")
        #expect(found == ["\(path):4: error: expected an assignment 'Key=value', found '\(line)'"])
    }
}

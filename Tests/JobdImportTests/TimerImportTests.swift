import Foundation
import JobctlCommands
import JobctlReports
import JobdCalendar
import JobdConfig
import JobdImport
import JobdRunner
import JobdTestKit
import Logging
import Testing

/// `jobctl import timer` on Debian 12's own timers, and on a service whose command lines must be
/// joined the way systemd runs them.
@Suite(.serialized) struct TimerImportTests {
    static let debianTimers = ["apt-daily", "logrotate", "man-db", "fstrim", "e2scrub_all"]
    static let unitDirectory = "/lib/systemd/system"
    /// What of Debian 12's timers jobd has no equivalent for, in the order the import reports it.
    static let notCarriedOver: [String: [String]] = [
        "apt-daily": ["[Unit] After=network.target"],
        "logrotate": ["[Unit] RequiresMountsFor=/var/log"],
        "man-db": ["ExecStart=: the '+' prefix"],
    ]
    static let analyze = "/usr/bin/systemd-analyze"

    /// Whether the machine has what the test compares with; a failure under CI, a loud skip otherwise.
    static func available(_ paths: [String], for test: String) throws -> Bool {
        for path in paths { try Requirement.tools(path, for: test) }
        return true
    }

    @Test func debianTimersBecomeJobsThatCheckAndElapseAsSystemdSays() throws {
        let paths = Self.debianTimers.flatMap { ["\(Self.unitDirectory)/\($0).timer", "\(Self.unitDirectory)/\($0).service"] }
        guard try Self.available(paths + [Self.analyze], for: "debianTimersBecomeJobs") else { return }
        let config = try TemporaryConfiguration()
        let jobs = config.path + "/jobs.d"
        for timer in Self.debianTimers {
            let importer = try DaemonProcess(product: "jobctl", arguments: ["import", "timer", "\(Self.unitDirectory)/\(timer).timer", "--output", jobs])
            let status = try importer.waitForExit()
            // Their sandboxing, conditions and limits carry over; what is left is what means
            // nothing to jobd (ordering against units, the + prefix of a root service), and it is said.
            let lost = importer.lines.filter { $0.contains("not carried over:") }
            let expected = Self.notCarriedOver[timer] ?? []
            #expect(status == (expected.isEmpty ? 0 : 1), "\(importer.lines)")
            #expect(lost.count == expected.count && zip(lost, expected).allSatisfy { $0.contains($1) }, "\(timer): \(lost)")
            #expect(importer.lines.contains("\(Self.unitDirectory)/\(timer).timer: imported as \(timer).job in \(jobs)"), "\(importer.lines)")
        }
        let check = try DaemonProcess(product: "jobctl", arguments: ["check", "--config-dir", config.path])
        #expect(try check.waitForExit() == 0, "\(check.lines)")
        #expect(check.lines.first == "\(config.path): 5 job(s), no errors", "\(check.lines)")

        let zone = "Europe/Berlin"
        let rules = try TimeZoneRules.load(named: zone)
        let base: Int64 = 1_774_699_200  // 2026-03-28 12:00 UTC, the day before summer time starts
        for timer in Self.debianTimers {
            let (unit, _) = UnitFile.parse(try String(contentsOfFile: "\(Self.unitDirectory)/\(timer).timer", encoding: .utf8), path: timer)
            let original = unit.assignments.filter { $0.key == "OnCalendar" }.map(\.value)
            let (job, _) = UnitFile.parse(try String(contentsOfFile: "\(jobs)/\(timer).job", encoding: .utf8), path: timer)
            let imported = job.assignments.filter { $0.key == "OnCalendar" }.map(\.value)
            #expect(imported.count == original.count && !imported.isEmpty, "\(timer): \(imported) for \(original)")
            for (expression, reference) in zip(imported, original) {
                let systemd = try CapturedProcess.run(
                    Self.analyze, ["calendar", "--iterations=10", "--base-time=@\(base)", "--", reference],
                    environment: ["TZ": zone, "LC_ALL": "C", "SYSTEMD_COLORS": "0", "PATH": "/usr/bin:/bin"])
                #expect(systemd.status == 0, "\(systemd.standardError)")
                let report = CalendarReport.render(
                    [expression], now: RealtimeInstant(seconds: base), baseTime: RealtimeInstant(seconds: base), zone: rules, iterations: 10)
                let elapses = { (text: String) in
                    text.split(separator: "\n").filter { $0.contains("elapse:") || $0.contains("Iter.") || $0.contains("(in UTC)") }
                }
                #expect(elapses(report.output) == elapses(systemd.standardOutput) && elapses(report.output).count == 20,
                        "\(timer): \(expression)\njobd:\n\(report.output)\nsystemd:\n\(systemd.standardOutput)")
            }
        }
    }

    static let timer = """
        [Unit]
        Description=Nightly report
        Documentation=man:report(8)

        [Timer]
        OnBootSec=15min
        OnUnitActiveSec=1d
        RandomizedDelaySec=30
        WakeSystem=true

        [Install]
        WantedBy=timers.target
        """

    static func service(_ commands: String) -> String {
        """
        [Unit]
        ConditionACPower=true
        After=network-online.target

        [Service]
        Type=oneshot
        Environment="GREETING=hello world" COUNT=2
        \(commands)
        Nice=10
        PrivateTmp=true
        """
    }

    @Test func keysAreCarriedOverOrListed() throws {
        let (timer, _) = UnitFile.parse(Self.timer, path: "report.timer")
        let (service, _) = UnitFile.parse(Self.service("ExecStart=/usr/bin/report --all\nUser=nobody\nTimeoutStopSec=30s"), path: "report.service")
        let result = TimerImporter.convert(timer: timer, service: service, name: "report")
        let job = try #require(result.job)
        #expect(job.assignments.map { "\($0.key)=\($0.value)" } == [
            "Description=Nightly report", "OnStartupSec=15min", "OnUnitActiveSec=1d", "RandomizedDelaySec=30",
            "AccuracySec=1min", "ConditionACPower=true", "Environment=\"GREETING=hello world\" COUNT=2", "User=nobody", "TimeoutStopSec=30s",
            "Nice=10", "PrivateTmp=true", "ExecStart=/usr/bin/report --all",
        ])
        #expect(job.comments.contains { $0.contains("OnBootSec=15min became OnStartupSec=") })
        #expect(result.timerReport.lines(path: "report.timer") == [
            "report.timer:6: note: OnBootSec=15min became OnStartupSec=, counted from jobd's start, not the boot",
            "report.timer:9: not carried over: [Timer] WakeSystem=true",
        ])
        #expect(result.serviceReport.lines(path: "report.service") == [
            "report.service:3: not carried over: [Unit] After=network-online.target",
        ])
        #expect(result.hasLosses)
        guard case .success = JobFileReader.read(name: job.name, path: "report.job", text: job.text) else {
            Issue.record("the job file does not pass jobctl check:\n\(job.text)")
            return
        }
    }

    /// systemd's later timer keys carry over as they are (issue 40); a timer with only
    /// `OnClockChange=yes` has a trigger, one with `OnClockChange=no` alone has none.
    @Test func laterTimerKeysCarryOver() throws {
        let (timer, _) = UnitFile.parse("""
            [Timer]
            OnCalendar=daily
            RandomizedDelaySec=1h
            FixedRandomDelay=yes
            RandomizedOffsetSec=15min
            DeferReactivation=yes
            OnClockChange=yes
            OnTimezoneChange=yes
            """, path: "later.timer")
        let (service, _) = UnitFile.parse(Self.service("ExecStart=/usr/bin/true"), path: "later.service")
        let result = TimerImporter.convert(timer: timer, service: service, name: "later")
        let job = try #require(result.job)
        #expect(!result.timerReport.hasLosses, "\(result.timerReport.lines(path: "later.timer"))")
        let definition = try JobFileReader.read(name: job.name, path: "later.job", text: job.text).get()
        #expect(definition.timing.fixedRandomDelay && definition.timing.deferReactivation && definition.timing.onClockChange
                && definition.timing.onTimezoneChange && definition.timing.randomizedOffset == .seconds(900), "\(job.text)")
        let (clockOnly, _) = UnitFile.parse("[Timer]\nOnClockChange=yes\n", path: "clock.timer")
        #expect(TimerImporter.convert(timer: clockOnly, service: service, name: "clock").job != nil)
    }

    /// apt-daily-upgrade.service has `KillMode=process`: jobd's two modes carry over, the others are reported.
    @Test func killModesJobdHasCarryOver() throws {
        let (timer, _) = UnitFile.parse("[Timer]\nOnCalendar=daily\n", path: "t.timer")
        let (process, _) = UnitFile.parse("[Service]\nKillMode=process\nExecStart=/bin/true\n", path: "p.service")
        let kept = TimerImporter.convert(timer: timer, service: process, name: "p")
        #expect(kept.job?.assignments.contains { $0.key == "KillMode" && $0.value == "process" } == true)
        #expect(kept.serviceReport.lines(path: "p.service").isEmpty)
        let (mixed, _) = UnitFile.parse("[Service]\nKillMode=mixed\nExecStart=/bin/true\n", path: "m.service")
        let reported = TimerImporter.convert(timer: timer, service: mixed, name: "m")
        #expect(reported.job?.assignments.contains { $0.key == "KillMode" } == false)
        #expect(reported.serviceReport.lines(path: "m.service") == ["m.service:2: not carried over: [Service] KillMode=mixed"])
    }

    @Test func specifiersAreReportedNotExpanded() throws {
        let (timer, _) = UnitFile.parse("[Timer]\nOnCalendar=daily\n", path: "t.timer")
        let (service, _) = UnitFile.parse("[Service]\nWorkingDirectory=%h\nEnvironment=A=100%%\nExecStart=/bin/echo %n\n", path: "t.service")
        let result = TimerImporter.convert(timer: timer, service: service, name: "t")
        #expect(result.job == nil)
        #expect(result.serviceReport.lines(path: "t.service") == [
            "t.service:2: not carried over: WorkingDirectory=%h: jobd takes an absolute path only",
            "t.service:4: not carried over: ExecStart=/bin/echo %n: the specifier '%n' is not supported by jobd",
        ])
        let (literal, _) = UnitFile.parse("[Service]\nEnvironment=DIR=%h\nEnvironment=RATE=100%%\nExecStart=/bin/echo 100%%\n", path: "l.service")
        let kept = TimerImporter.convert(timer: timer, service: literal, name: "l")
        #expect(kept.job?.assignments.suffix(3).map(\.value) == ["DIR=%h", "RATE=100%", "/bin/echo 100%%"])
        #expect(kept.serviceReport.lines(path: "l.service") == [
            "l.service:2: not carried over: Environment=DIR=%h: jobd does not expand systemd's specifiers (%n, %h...)",
        ])
    }

    @Test func resourceKeysCarryTheirPercentagesAsSystemdReadsThem() throws {
        // systemd expands no specifiers in these keys: `%` is a share, and the job reads it back so.
        let (timer, _) = UnitFile.parse("[Timer]\nOnCalendar=daily\n", path: "t.timer")
        let (service, _) = UnitFile.parse("""
            [Service]
            ExecStart=/usr/bin/mandb --quiet
            TasksMax=15%
            MemoryMax=50%
            MemoryHigh=1G
            MemorySwapMax=0
            CPUWeight=idle
            CPUQuota=20%
            IOWeight=10
            """, path: "t.service")
        let result = TimerImporter.convert(timer: timer, service: service, name: "t")
        #expect(!result.hasLosses, "\(result.serviceReport.entries)")
        let job = try #require(result.job)
        #expect(job.assignments.filter { $0.key != "OnCalendar" && $0.key != "AccuracySec" && $0.key != "ExecStart" }.map { "\($0.key)=\($0.value)" } == [
            "TasksMax=15%", "MemoryMax=50%", "MemoryHigh=1G", "MemorySwapMax=0", "CPUWeight=idle", "CPUQuota=20%", "IOWeight=10",
        ])
        let definition = try JobFileReader.read(name: "t", path: "t.job", text: job.text).get()
        #expect(definition.tasksMax == .permyriad(1_500) && definition.resourceControl.cpuQuota == 2_000)
        #expect(definition.resourceControl.memoryMax == .permyriad(5_000) && definition.resourceControl.keys.count == 6)
    }

    /// Several command lines run in order; the first failure stops them with its status unless its
    /// line has `-`; variables expand from the job's environment as systemd expands them.
    @Test(arguments: [
        ("ExecStartPre=-/bin/false\nExecStart=/bin/echo \"a  b\" ${GREETING}\nExecStart=/bin/sh -c 'echo $$COUNT; exit 3'\nExecStartPost=/bin/echo never",
         3, "a  b hello world\n2\n"),
        ("ExecStart=/bin/echo $GREETING\nExecStart=-/bin/sh -c 'exit 4'\nExecStartPost=/usr/bin/printf %%s|%%s '*' \"\"",
         0, "hello world\n*|"),
        ("ExecStart=/bin/echo one\nExecStart=\nExecStart=/bin/echo two\nExecStart=-/bin/false", 0, "two\n"),
    ])
    func joinedCommandLinesRunAsSystemdRunsThem(commands: String, status: Int32, output: String) throws {
        let (timer, _) = UnitFile.parse(Self.timer, path: "report.timer")
        let (service, _) = UnitFile.parse(Self.service(commands), path: "report.service")
        let result = TimerImporter.convert(timer: timer, service: service, name: "report")
        let job = try #require(result.job)
        guard case .success(let definition) = JobFileReader.read(name: job.name, path: "report.job", text: job.text) else {
            Issue.record("the job file does not pass jobctl check:\n\(job.text)")
            return
        }
        let environment = JobRunner(logger: Logger(label: "import-tests"), environment: [:], host: SystemHostFacts()).environment(for: definition, runID: 1)
        let argv = definition.command.argv(environment: environment)
        let run = try ProcessRun.run(argv, environment: environment, directory: "/", input: nil)
        #expect(run.status == status && run.output == output, "\(run)\n\(job.text)")
    }

    /// SyslogIdentifier= carries over as it is; one with a specifier jobd cannot expand is reported, not written.
    @Test(arguments: [("backup-db", true), ("%n", false), ("two words", false)])
    func syslogIdentifierIsCarriedOverOrReported(value: String, carried: Bool) throws {
        let (timer, _) = UnitFile.parse("[Timer]\nOnCalendar=daily\n", path: "backup.timer")
        let (service, _) = UnitFile.parse("[Service]\nExecStart=/bin/true\nSyslogIdentifier=\(value)\n", path: "backup.service")
        let result = TimerImporter.convert(timer: timer, service: service, name: "backup")
        let job = try #require(result.job)
        #expect(job.assignments.contains { $0.key == "SyslogIdentifier" && $0.value == value } == carried, "\(job.text)")
        #expect(result.hasLosses == !carried, "\(result.serviceReport.entries)")
        if !carried {
            #expect(result.serviceReport.entries.contains { $0.kind == .notCarriedOver && $0.message.hasPrefix("SyslogIdentifier=\(value): ") && $0.line == 3 },
                    "\(result.serviceReport.entries)")
        }
    }
}

import JobctlCommands
import JobctlReports
import JobdCalendar
import JobdConfig
import JobdImport
import Testing

/// A system crontab told by its location alone (issue 37), an unescaped `%` inside quotes or
/// `$(…)` warned about, and MAILTO carried over as MailTo= (issue 29).
struct CrontabFormatTests {
    static func detect(_ text: String) -> CrontabFormat.Detection {
        CrontabFormat.detect(Array(text.utf8)) { ["root", "nobody", "backup"].contains($0) }
    }

    @Test func entriesThatNameAnAccountAfterTheScheduleMakeASystemCrontab() {
        #expect(Self.detect("SHELL=/bin/sh\n# x\n17 * * * * root cd / && run-parts /etc/cron.hourly\n@daily nobody true\n")
            == .system(accounts: ["root", "nobody"]))
        #expect(Self.detect("0 1 * * * echo root\n@daily true\n") == .user)
        // An account with no command after it is a user crontab's command.
        #expect(Self.detect("0 1 * * * backup\n") == .user)
        #expect(Self.detect("0 1 * * * root true\n0 2 * * * echo x\n0 3 * * * backup /usr/bin/x\n")
            == .mixed(withAccount: [1, 3], without: [2]))
        #expect(Self.detect("# only comments\nA=b\n") == .user)
    }

    @Test func theFormatIsDecidedOrRefusedWithAHint() {
        let system = CrontabFormat.Detection.system(accounts: ["root"])
        let mixed = CrontabFormat.Detection.mixed(withAccount: [1, 3], without: [2])
        func decide(_ detection: CrontabFormat.Detection, byName: Bool = false, user: Bool = false, owner: UInt32? = 0) -> CrontabFormat.Decision {
            CrontabFormat.decide(detection, path: "backup", systemByName: byName, explicitUser: user, ownerUID: owner)
        }
        #expect(decide(.user) == .read(systemFormat: false, note: nil))
        #expect(decide(.user, byName: true) == .read(systemFormat: true, note: nil))
        #expect(decide(mixed, byName: true) == .read(systemFormat: true, note: nil))
        // A file outside /etc (or standard input) whose entries all name an account after the
        // schedule is never read as a system crontab, whoever owns it: root's copy of alice's
        // crontab (crontab -l -u alice > FILE) that says root there must not become root's jobs.
        for owner: UInt32? in [0, 1000, nil] {
            guard case .refused(let refused) = decide(system, owner: owner) else { Issue.record("\(decide(system, owner: owner))"); return }
            #expect(refused.contains("every entry of backup has an account (root)") && refused.contains("only in /etc/crontab and /etc/cron.d/")
                    && refused.contains("--system") && refused.contains("--user NAME"), "\(refused)")
        }
        // --system is obeyed, with a note when cron itself would not read the file.
        #expect(decide(system, byName: true, owner: nil) == .read(systemFormat: true, note: nil))
        guard case .read(true, let wrongOwner?) = decide(.user, byName: true, owner: 1000) else { Issue.record("\(decide(.user, byName: true, owner: 1000))"); return }
        #expect(wrongOwner.contains("owned by uid 1000, not root") && wrongOwner.contains("WRONG FILE OWNER"), "\(wrongOwner)")
        guard case .read(false, let userNote?) = decide(system, user: true) else { Issue.record("\(decide(system, user: true))"); return }
        #expect(userNote.contains("as --user says"))
        guard case .refused(let reason) = decide(mixed) else { Issue.record("\(decide(mixed))"); return }
        #expect(reason.contains("lines 1, 3 of backup have an account") && reason.contains("line 2 does not") && reason.contains("--system")
                && reason.contains("--user"), "\(reason)")
        guard case .read(false, _) = decide(mixed, user: true) else { Issue.record("\(decide(mixed, user: true))"); return }
    }

    /// Cron's locations of system crontabs, as written: /etc/crontab and the files directly in
    /// /etc/cron.d (cron reads no subdirectory).
    @Test(arguments: [
        ("/etc/crontab", true), ("/etc/cron.d/backup", true), ("/etc/cron.d/e2scrub_all", true),
        ("/etc/cron.d/", false), ("/etc/cron.d/.", false), ("/etc/cron.d/..", false), ("/etc/cron.d/../../home/alice/cron", false),
        ("/etc/cron.d/sub/backup", false), ("/etc/crontab.bak", false), ("/tmp/etc/crontab", false), ("etc/crontab", false),
        ("/etc/cron.daily/backup", false), ("-", false), ("crontab", false),
    ])
    func onlyCronsLocationsAreSystemPaths(path: String, isSystem: Bool) {
        #expect(CrontabFormat.isSystemPath(path) == isSystem)
    }

    /// Issue 38: the files jobd in cron mode reads itself, of which an import says it needs none.
    @Test(arguments: [
        ("/etc/crontab", true), ("/etc/cron.d/sysstat", true), ("/var/spool/cron/crontabs/alice", true),
        ("/var/spool/cron/crontabs/", false), ("/var/spool/cron/crontabs/.alice.x1", false), ("/var/spool/cron/crontabs/a/b", false),
        ("/var/spool/cron/alice", false), ("/home/alice/crontab", false), ("-", false),
    ])
    func cronModeReadsCronsOwnFiles(path: String, isSource: Bool) {
        #expect(CrontabFormat.isCronSource(path) == isSource)
    }

    @Test(arguments: [
        ("echo $(date +%F)", "inside $(…)"),
        ("tar czf /b/$(date +%Y-%m).tgz /srv", "inside $(…)"),
        ("echo '%'", "inside single quotes"),
        ("echo \"at 100%\"", "inside double quotes"),
        ("echo `date +%s`", "inside backquotes"),
        ("echo \"$(date '+%F')\"", "inside single quotes"),
    ])
    func aPercentInsideQuotesOrSubstitutionsIsWarnedAbout(command: String, context: String) {
        #expect(CronCommand.quotedPercent(in: command) == context)
        let result = CrontabImporter.convert("0 1 * * * \(command)\n", options: CrontabImporter.Options(
            path: "crontab", systemFormat: false, user: "root", homeDirectory: { _ in "/root" }))
        #expect(result.report.entries.filter { $0.kind == .warning }.map(\.line) == [1])
        #expect(!result.report.hasLosses)
    }

    @Test(arguments: ["date +%F", "echo $(date +\\%F)", "cat%'quoted' input", "echo '\\%' %x", "echo 'a\\' % b", "true"])
    func aPercentOutsideQuotesOrEscapedIsNot(command: String) {
        #expect(CronCommand.quotedPercent(in: command) == nil)
    }

    /// CRON_TZ=Europe/Berlin: Cron= in that zone, which jobd reads back and `jobctl calendar --cron`
    /// shows elapsing as cronie would, across Berlin's change back to winter time on 2026-10-25
    /// (02:30 twice, on a UTC clock).
    @Test func cronTZCarriesOverAsTheZoneOfCron() throws {
        let crontab = "CRON_TZ=Europe/Berlin\n30 2 * * * /usr/bin/backup\n@reboot /usr/bin/boot\nCRON_TZ=Nowhere/Zone\n0 1 * * * /usr/bin/late\n"
        let result = CrontabImporter.convert(crontab, options: CrontabImporter.Options(
            path: "crontab", systemFormat: false, user: "root", homeDirectory: { _ in "/root" }))
        #expect(result.jobs.map { $0.assignments.first { $0.key == "Cron" }?.value } == ["30 2 * * * Europe/Berlin", "@reboot", "0 1 * * *"])
        #expect(result.report.entries.filter { $0.kind == .notCarriedOver }.map(\.line) == [4], "\(result.report.entries)")
        #expect(result.report.entries.contains { $0.kind == .note && $0.line == 1 && $0.message.contains("as cronie schedules them") })
        let backup = try #require(result.jobs.first)
        #expect(backup.problems(path: "backup.job").isEmpty)
        guard case .success(let definition) = JobFileReader.read(name: "backup", path: "backup.job", text: backup.text) else {
            Issue.record("\(backup.text)")
            return
        }
        #expect(definition.triggers == [.cron(try CronSpec.parse("30 2 * * * Europe/Berlin"))])
        #expect(definition.triggers.map(\.description) == ["Cron=30 2 * * * Europe/Berlin"])

        let base = RealtimeInstant(seconds: 1_792_800_000)  // 2026-10-24 00:00:00 UTC
        let report = CalendarReport.render(["30 2 * * * Europe/Berlin"], now: base, baseTime: base, zone: .utc, iterations: 4, cron: true)
        #expect(report.allValid)
        #expect(report.output.contains("Normalized form: 30 2 * * * Europe/Berlin"), "\(report.output)")
        let elapses = report.output.split(separator: "\n").filter { $0.contains("Next elapse:") || $0.contains("Iter. #") }
            .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingPrefix(" ") }
        #expect(elapses == ["Sat 2026-10-24 00:30:00 UTC", "Sun 2026-10-25 00:30:00 UTC", "Sun 2026-10-25 01:30:00 UTC",
                            "Mon 2026-10-26 01:30:00 UTC"], "\(report.output)")
    }

    /// MAILTO becomes MailTo= exactly as cron mails: its recipients, the crontab's owner when it
    /// is unset, nobody for MAILTO="" or an address cron finds unsafe.
    @Test(arguments: [
        ("MAILTO=ops@example.com\n", "ops@example.com"), ("MAILTO=a@x.org,b@y.org\n", "a@x.org b@y.org"), ("", "alice"),
        ("MAILTO=\"\"\n", nil), ("MAILTO=\"a@x b@y\"\n", nil), ("MAILTO=-oQ/tmp\n", nil),
    ] as [(String, String?)])
    func mailtoBecomesMailTo(variables: String, mailTo: String?) throws {
        let result = CrontabImporter.convert(variables + "0 1 * * * true\n", options: CrontabImporter.Options(
            path: "crontab", systemFormat: false, user: "alice", homeDirectory: { _ in "/home/alice" }))
        let job = try #require(result.jobs.first, "\(result.report.lines(path: "crontab"))")
        #expect(job.assignments.filter { $0.key == "MailTo" }.map(\.value) == (mailTo.map { [$0] } ?? []), "\(job.text)")
    }
}

/// Issue 38: cron never judged an exit status; jobd does. The import warns about a command that
/// ends in `TEST && …`, whose status is 1 whenever the test fails, as in normal operation.
struct FailingTestIdiomTests {
    static func warnings(_ command: String) -> [String] {
        CrontabImporter.convert("*/10 * * * * \(command)\n", options: CrontabImporter.Options(
            path: "crontab", systemFormat: false, user: "root", homeDirectory: { _ in "/root" }))
            .report.entries.filter { $0.kind == .warning }.map(\.message)
    }

    @Test(arguments: [
        ("command -v debian-sa1 > /dev/null && debian-sa1 1 1", "command -v debian-sa1 > /dev/null"),
        ("[ -x /usr/lib/php/sessionclean ] && /usr/lib/php/sessionclean", "[ -x /usr/lib/php/sessionclean ]"),
        ("test -e /run/x && rm /run/x", "test -e /run/x"),
        ("  which certbot >/dev/null && certbot -q renew", "which certbot >/dev/null"),
    ])
    func aCommandThatEndsInATestAndIsWarnedAbout(command: String, test: String) throws {
        let warning = try #require(Self.warnings(command).first)
        #expect(warning.hasPrefix("the command ends in '\(test) && …': where the test fails"), "\(warning)")
        #expect(warning.contains("write 'if \(test); then …; fi', or add '|| true'"))
    }

    @Test(arguments: [
        "test -x /usr/sbin/anacron || ( cd / && run-parts --report /etc/cron.daily )",
        "/usr/bin/backup && /usr/bin/notify",
        "[ -x /usr/bin/x ] && /usr/bin/x || true",
        "cd /srv && make",
        "echo hi",
    ])
    func otherCommandsAreNot(command: String) {
        #expect(Self.warnings(command).isEmpty, "\(command)")
    }
}

import JobdConfig
import JobdImport
import Testing

/// Cron's files read as jobd's cron mode reads them: which files count, which cron would refuse,
/// and each line a job named after its file and text (issue 38).
struct CronTableTests {
    /// Accounts every Debian machine has, as JobFileReader checks User= against the machine.
    static let accounts: [String: CronTable.Account] = [
        "root": (0, "/root"), "nobody": (65534, "/nonexistent"), "www-data": (33, "/var/www"),
    ]

    static func read(
        _ text: String, kind: CronSourceFile.Kind = .cronDirectory(name: "example"), path: String = "/etc/cron.d/example",
        status: CronSourceFile.Status = .init(uid: 0, permissions: 0o644), failureResult: CronSettings.FailureResult = .judge
    ) -> CronTable.Result {
        CronTable.read(CronSourceFile(path: path, kind: kind, status: status, bytes: Array(text.utf8)), failureResult: failureResult) {
            accounts[$0]
        }
    }

    static func argv(_ definition: JobDefinition) -> [String] {
        definition.command.argv(environment: [:])
    }

    @Test func cronDirectoryNamesCountAsRunPartsNamesDo() {
        #expect(CronSourceFile.countsInCronDirectory("sysstat"))
        #expect(CronSourceFile.countsInCronDirectory("e2scrub_all"))
        #expect(CronSourceFile.countsInCronDirectory("php-7"))
        #expect(!CronSourceFile.countsInCronDirectory("sysstat.dpkg-old"))
        #expect(!CronSourceFile.countsInCronDirectory("certbot~"))
        #expect(!CronSourceFile.countsInCronDirectory(".placeholder"))
        #expect(!CronSourceFile.countsInCronDirectory(""))
    }

    @Test func ownershipAndModeAreCheckedAsDebiansCronChecksThem() {
        let line = "* * * * * root true\n"
        // A system file: root's, not writable by group or others, one link; a link of root's to it.
        #expect(Self.read(line).jobs.count == 1)
        #expect(Self.read(line, status: .init(uid: 0, permissions: 0o600, symlinkOwner: 0)).jobs.count == 1)
        for status in [CronSourceFile.Status(uid: 65534, permissions: 0o644), .init(uid: 0, permissions: 0o664),
                       .init(uid: 0, permissions: 0o646), .init(uid: 0, permissions: 0o644, linkCount: 2),
                       .init(uid: 0, permissions: 0o644, isRegular: false), .init(uid: 0, permissions: 0o644, symlinkOwner: 1000)] {
            let result = Self.read(line, status: status)
            #expect(result.jobs.isEmpty, "\(status)")
            #expect(result.broken.map(\.name) == ["cron.d-example"], "\(status)")
            #expect(result.broken.first?.errors.first?.message.hasPrefix("not read, as cron would not:") == true)
        }
        // A user's: the user's or root's, 0600 exactly, no link.
        let spool = CronSourceFile.Kind.spool(user: "nobody")
        let path = "/var/spool/cron/crontabs/nobody"
        #expect(Self.read("* * * * * true\n", kind: spool, path: path, status: .init(uid: 65534, permissions: 0o600)).jobs.count == 1)
        #expect(Self.read("* * * * * true\n", kind: spool, path: path, status: .init(uid: 0, permissions: 0o600)).jobs.count == 1)
        for status in [CronSourceFile.Status(uid: 33, permissions: 0o600), .init(uid: 65534, permissions: 0o640),
                       .init(uid: 65534, permissions: 0o600, symlinkOwner: 1000)] {
            let result = Self.read("* * * * * true\n", kind: spool, path: path, status: status)
            #expect(result.jobs.isEmpty, "\(status)")
            #expect(result.broken.map(\.name) == ["nobody:crontab"])
            #expect(result.broken.first?.owner == "nobody")
        }
        let orphan = Self.read("* * * * * true\n", kind: .spool(user: "bob"), path: "/var/spool/cron/crontabs/bob",
                               status: .init(uid: 1001, permissions: 0o600))
        #expect(orphan.broken.first?.errors.first?.message.contains("ORPHAN") == true)
    }

    @Test func theUserFieldOfSystemFilesAndTheOwnerOfSpoolFilesRunTheCommand() throws {
        let system = Self.read("*/5 * * * * www-data php /var/www/cron.php\n")
        let job = try #require(system.jobs.first)
        #expect(job.user == "www-data")
        #expect(job.owningUser == nil)
        #expect(job.workingDirectory?.path == "/var/www")
        #expect(job.cron?.user == "www-data")
        let spool = Self.read("0 3 * * * backup.sh\n", kind: .spool(user: "nobody"), path: "/var/spool/cron/crontabs/nobody",
                              status: .init(uid: 65534, permissions: 0o600))
        let own = try #require(spool.jobs.first, "\(spool.broken)")
        #expect(own.user == "nobody")
        #expect(own.owningUser == "nobody")
        #expect(own.name.hasPrefix("nobody:crontab-"))
        // A user cron does not know breaks its line, and only its line.
        let mixed = Self.read("* * * * * nobody-here true\n* * * * * root true\n")
        #expect(mixed.jobs.map(\.user) == ["root"])
        #expect(mixed.broken.first?.errors.first?.message == "there is no user nobody-here")
        #expect(mixed.broken.first?.errors.first?.line == 1)
    }

    /// Issue 37: a spool crontab's jobs are its account's by uid, as a user's job files are (her
    /// budgets, `jobctl --user`, `JOBD_JOB_UID`), whether the file is hers or root's; a system
    /// file's jobs are no user's, whatever user their lines name.
    @Test func aSpoolCrontabsJobsAreItsAccountsUIDAtTheLoad() throws {
        let path = "/var/spool/cron/crontabs/nobody"
        for owner: UInt32 in [65534, 0] {
            let spool = Self.read("0 3 * * * backup.sh\n61 * * * * oops\n", kind: .spool(user: "nobody"), path: path,
                                  status: .init(uid: owner, permissions: 0o600))
            #expect(try #require(spool.jobs.first).owningUID == 65534, "a file of uid \(owner)")
            #expect(spool.broken.map(\.ownerUID) == [65534], "a broken line is hers too")
        }
        // The name re-created with another uid: the next load's jobs are the new account's.
        let recreated = CronTable.read(
            CronSourceFile(path: path, kind: .spool(user: "nobody"), status: .init(uid: 2000, permissions: 0o600),
                           bytes: Array("0 3 * * * backup.sh\n".utf8)), failureResult: .judge) { $0 == "nobody" ? (2000, "/nonexistent") : nil }
        let before = try #require(Self.read("0 3 * * * backup.sh\n", kind: .spool(user: "nobody"), path: path,
                                            status: .init(uid: 0, permissions: 0o600)).jobs.first)
        let after = try #require(recreated.jobs.first)
        #expect(after.owningUID == 2000)
        // A reload sees the job changed (its file is another account's), so the old uid's definition does not stay.
        #expect(after.changedKeys(from: before) == ["file"])
        #expect(Self.read("* * * * * www-data true\n").jobs.first?.owningUID == nil)
    }

    @Test func aBrokenLineDisablesThatLineAloneWithItsFileAndLine() throws {
        let result = Self.read("""
            # m h dom mon dow user command
            * * * * * root echo one
            61 * * * * root echo two
            * * * * *
            * * * * * root echo three
            """ + "\n")
        #expect(result.jobs.map { Self.argv($0).last } == ["exec 2>&1\necho one", "exec 2>&1\necho three"])
        #expect(result.broken.map { $0.errors.first?.location } == ["/etc/cron.d/example:3", "/etc/cron.d/example:4"])
        let schedule = try #require(result.broken.first?.errors.first)
        #expect(schedule.message.hasPrefix("'61 * * * *' is not a schedule"))
        #expect(result.broken[1].errors.first?.message.contains("expected the user name after the schedule") == true)
    }

    @Test func namesStayWhenLinesAreAddedAboveAndDifferForRepeatedLines() {
        let before = Self.read("0 * * * * root run-parts /etc/hourly\n")
        let after = Self.read("MAILTO=ops\n# added\n5 4 * * * root other\n0 * * * * root run-parts /etc/hourly \n0 * * * * root run-parts /etc/hourly\n")
        let name = before.jobs[0].name
        #expect(name.hasPrefix("cron.d-example-") && name.count == "cron.d-example-".count + 8)
        #expect(after.jobs.map(\.name).contains(name))
        #expect(after.jobs.map(\.name).contains(name + "-2"))
        #expect(JobFileReader.isValidJobName(name))
        #expect(CronTable.jobName(.systemCrontab, text: "x") == "crontab-" + CronTable.jobName(.cronDirectory(name: "a"), text: "x").suffix(8))
    }

    @Test func cronsEnvironmentMailtoAndMailfromReachTheJob() throws {
        let result = Self.read("""
            MAILTO=ops@example.org
            MAILFROM=cron@example.org
            CRON_TZ=Asia/Tokyo
            PATH=/usr/local/bin:/usr/bin:/bin
            30 2 * * * nobody nightly --all%input
            """ + "\n")
        let job = try #require(result.jobs.first)
        let origin = try #require(job.cron)
        #expect(origin.command == "nightly --all")
        #expect(origin.environment == ["MAILTO=ops@example.org", "MAILFROM=cron@example.org", "CRON_TZ=Asia/Tokyo",
                                       "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/sh", "HOME=/nonexistent", "LOGNAME=nobody"])
        #expect(origin.mailTo == "ops@example.org")
        #expect(origin.mailFrom == "cron@example.org")
        #expect(origin.line == 5)
        #expect(job.mailTo == ["ops@example.org"])
        // Debian's cron passes CRON_TZ to the command and schedules in its local time.
        #expect(job.triggers.map(\.description) == ["Cron=30 2 * * *"])
        #expect(job.environment.contains { $0.name == "CRON_TZ" && $0.value == "Asia/Tokyo" })
        #expect(job.environment.contains { $0.name == "LOGNAME" && $0.value == "nobody" })
        // Standard input from %, after the pipe is shared.
        #expect(Self.argv(job).last == "exec 2>&1\nexec <<'JOBD_STDIN'\ninput\nJOBD_STDIN\nnightly --all")
    }

    @Test func rebootAndDebiansAnacronGuardRunAsWritten() throws {
        let result = Self.read("""
            SHELL=/bin/sh
            PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin
            17 *\t* * *\troot\tcd / && run-parts --report /etc/cron.hourly
            25 6\t* * *\troot\ttest -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }
            @reboot root /usr/local/bin/at-boot
            """ + "\n", kind: .systemCrontab, path: "/etc/crontab")
        #expect(result.broken.isEmpty)
        #expect(result.jobs.count == 3)
        #expect(result.jobs.allSatisfy { $0.name.hasPrefix("crontab-") })
        #expect(Self.argv(result.jobs[1]) == ["/bin/sh", "-c", "exec 2>&1\ntest -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }"])
        #expect(result.jobs[2].triggers.map(\.description) == ["Cron=@reboot"])
    }

    @Test func failureResultIgnoreCountsEveryExitStatusAsCronDid() throws {
        let judged = try #require(Self.read("* * * * * root false\n").jobs.first)
        let ignored = try #require(Self.read("* * * * * root false\n", failureResult: .ignore).jobs.first)
        #expect(judged.successExitStatus.statuses.isEmpty)
        #expect(ignored.successExitStatus.statuses == Set(1...255))
        #expect(ignored.successExitStatus.signals.isEmpty)
    }

    @Test func aTestThatExitsOneInNormalOperationIsWarnedAboutWhenJobdJudges() {
        let sysstat = "5-55/10 * * * * root command -v debian-sa1 > /dev/null && debian-sa1 1 1\n"
            + "25 6 * * * root test -x /usr/sbin/anacron || run-parts /etc/cron.daily\n"
        let judged = Self.read(sysstat)
        #expect(judged.jobs.count == 2)
        #expect(judged.warnings.map(\.location) == ["/etc/cron.d/example:1"])
        #expect(judged.warnings.first?.message.contains("'command -v debian-sa1 > /dev/null && …'") == true)
        #expect(Self.read(sysstat, failureResult: .ignore).warnings.isEmpty)
    }
}

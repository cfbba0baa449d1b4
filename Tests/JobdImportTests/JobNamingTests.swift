import JobdConfig
import JobdImport
import JobdTestKit
import Testing

/// Job names from commands: what the command runs, unique within a crontab, the same every time.
struct JobNamingTests {
    static let crontab = """
        0 1 * * * /usr/local/bin/backup.sh --all > /var/log/backup.log 2>&1
        0 2 * * * cd /srv/app && ./deploy.py
        25 6 * * * test -x /usr/sbin/anacron || ( cd / && run-parts --report /etc/cron.daily )
        0 3 * * * nice -n 19 ionice -c3 /usr/bin/updatedb
        0 4 * * * LANG=C /usr/local/bin/backup.sh --incremental
        0 5 * * * /usr/local/bin/backup.sh --verify%yes
        */5 * * * * [ -f /run/flag ] && /usr/bin/logger 'flag set'
        0 6 * * * >/dev/null 2>&1 ; /opt/Tool Box/run!.sh
        @hourly 2>/dev/null true

        """

    func names(_ text: String) -> [String] {
        CrontabImporter.convert(text, options: CrontabImporter.Options(
            path: "crontab", systemFormat: false, user: "root", homeDirectory: { _ in "/root" })).jobs.map(\.name)
    }

    @Test func namesSayWhatRunsAndAreUniqueAndStable() {
        let first = names(Self.crontab)
        #expect(first == ["backup", "deploy", "run-parts-cron.daily", "updatedb", "backup-2", "backup-3", "logger", "Tool", "true"])
        #expect(names(Self.crontab) == first)
        #expect(Set(first).count == first.count)
        #expect(first.allSatisfy(JobFileReader.isValidJobName))
    }

    @Test func jobctlImportCronReadsStandardInputAndPrintsTheJobFiles() throws {
        let jobctl = DaemonProcess.productsDirectory + "/jobctl"
        let run = try CapturedProcess.run("/bin/sh", ["-c", "printf '@daily echo hi%%there\\n' | \(jobctl) import cron - --user root"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("# echo.job\n# Imported by jobctl import cron from <stdin>, line 1:\n"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("\nCron=@daily\nUser=root\n"), "\(run.standardOutput)")
        #expect(run.standardError == "<stdin>:1: imported: echo.job\n<stdin>: 1 job file(s) printed\n")
    }
}

/// Names from the comment line directly above an entry, and `--prefix`.
struct CommentNamingTests {
    static let crontab = """
        # Nightly backup of /srv.
        0 1 * * * /usr/local/bin/backup.sh
        # m h  dom mon dow   command
        0 2 * * * /usr/bin/updatedb
        # 0 3 * * * /usr/bin/old-job
        0 4 * * * /usr/bin/logrotate /etc/logrotate.conf
        # far above

        0 5 * * * /usr/bin/true
        # ---------
        0 6 * * * /usr/bin/false
        # Nightly backup of /srv
        @reboot /usr/local/bin/backup.sh --boot

        """

    func names(prefix: String = "") -> [String] {
        CrontabImporter.convert(Self.crontab, options: CrontabImporter.Options(
            path: "crontab", systemFormat: false, user: "root", homeDirectory: { _ in "/root" }, namePrefix: prefix)).jobs.map(\.name)
    }

    @Test func aCommentDirectlyAboveNamesTheJob() {
        // Not: cron's column header, an entry commented out, a comment with a blank line after it,
        // a rule of dashes.
        #expect(names() == ["nightly-backup-of-srv", "updatedb", "logrotate", "true", "false", "nightly-backup-of-srv-2"])
        #expect(names(prefix: "cron-") == ["cron-nightly-backup-of-srv", "cron-updatedb", "cron-logrotate", "cron-true", "cron-false",
                                           "cron-nightly-backup-of-srv-2"])
        #expect(names().allSatisfy(JobFileReader.isValidJobName))
    }
}

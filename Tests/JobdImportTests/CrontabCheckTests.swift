import JobdConfig
import JobdImport
import Testing

/// Issue 38: what crontab(1) checks before it installs a crontab is cron mode's own reading of the
/// spool file it would write, so that it accepts exactly what cron mode runs; without files or processes.
struct CrontabCheckTests {
    /// `user`'s crontab (an account every machine has: the job's `User=` is looked up).
    static func check(_ text: String, path: String = "/tmp/crontab.X/crontab", user: String = "nobody",
                      failureResult: CronSettings.FailureResult = .judge) -> CrontabCheck {
        CrontabCheck.check(crontab: Array(text.utf8), of: user, path: path, failureResult: failureResult) { CronTableTests.accounts[$0] }
    }

    @Test func aCrontabIsCheckedWithItsLines() {
        let text = "MAILTO=\"\"\n61 * * * * /bin/true\n0 5 * * * echo \"%\"\n*/5 * * * * /bin/true\n@hourly tail"
        let check = Self.check(text)
        #expect(check.errors.count == 2, "\(check.errors)")
        #expect(check.errors.first?.hasPrefix("/tmp/crontab.X/crontab:2: error: '61 * * * *' is not a schedule") == true, "\(check.errors)")
        #expect(check.errors.last?.hasPrefix("/tmp/crontab.X/crontab:5: error: ") == true, "a last line with no newline is refused")
        #expect(check.warnings.count == 1 && check.warnings[0].hasPrefix("/tmp/crontab.X/crontab:3: warning: "), "\(check.warnings)")
        #expect(Self.check("# nothing\n\n*/5 * * * * /bin/true\n", path: "-") == CrontabCheck())
    }

    /// The check agrees with cron mode where the importer did not: a `CRON_TZ` jobd knows no zone
    /// for is a variable cron passes on (Debian's cron schedules in its own zone), so the crontab
    /// installs; an idiom that exits non-zero is warned about only while jobd.conf judges exit
    /// statuses; a user cron would not read a crontab of (no account) gets nothing installed.
    @Test func theCheckAcceptsWhatCronModeRunsAndWarnsAsItsSettingsSay() {
        let zoned = Self.check("CRON_TZ=Mars/Olympus\n0 5 * * * /bin/true\n")
        #expect(zoned.errors.isEmpty, "\(zoned.errors)")
        let idiom = "0 5 * * * test -x /usr/bin/backup && /usr/bin/backup\n"
        let judged = Self.check(idiom)
        #expect(judged.errors.isEmpty && judged.warnings.count == 1, "\(judged)")
        #expect(judged.warnings.first?.hasPrefix("/tmp/crontab.X/crontab:1: warning: ") == true && judged.warnings.first?.contains("FailureResult=ignore") == true)
        #expect(Self.check(idiom, failureResult: .ignore) == CrontabCheck())
        let orphan = Self.check("0 5 * * * /bin/true\n", user: "no-such-user")
        #expect(orphan.errors.count == 1 && orphan.errors[0].contains("ORPHAN"), "\(orphan.errors)")
        let passedOver = Self.check("0 5 * * * /bin/true\n", user: "tmp.x")
        #expect(passedOver.errors.count == 1 && passedOver.errors[0].contains("cron mode would not read tmp.x's crontab"), "\(passedOver)")
    }

    /// Every line of a user's crontab runs as its owner: the account is looked up once for the
    /// file, not once a line (a 600-line crontab is 600 NSS look-ups otherwise, each a round trip
    /// to sssd or LDAP where the accounts are there).
    @Test func theOwnerIsLookedUpOnceForTheWholeCrontab() {
        final class Counter { var names: [String] = [] }
        let counter = Counter()
        let text = (1...50).map { "\($0) * * * * /usr/bin/backup --set \($0)\n" }.joined()
        let check = CrontabCheck.check(crontab: Array(text.utf8), of: "nobody", path: "-") { name in
            counter.names.append(name)
            return CronTableTests.accounts[name]
        }
        #expect(check == CrontabCheck())
        #expect(counter.names == ["nobody"])
    }
}

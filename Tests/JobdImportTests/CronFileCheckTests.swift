import JobdImport
import Testing

/// `jobctl check` of cron's files (issue 38): the kind by location, as cron mode reads it, and
/// each broken line as FILE:LINE: what was expected, by the check crontab(1) runs before it installs.
struct CronFileCheckTests {
    static func check(_ text: String, path: String, uid: UInt32 = 0, permissions: UInt32 = 0o644) throws -> CrontabCheck {
        let kind = try #require(CronSourceFile.kind(ofPath: path))
        let source = CronSourceFile(path: path, kind: kind, status: .init(uid: uid, permissions: permissions), bytes: Array(text.utf8))
        return CrontabCheck.check(source) { CronTableTests.accounts[$0] }
    }

    @Test func theKindOfAFileIsWhereItIs() {
        #expect(CronSourceFile.kind(ofPath: "/etc/crontab") == .systemCrontab)
        #expect(CronSourceFile.kind(ofPath: "/srv/root/etc/crontab") == .systemCrontab)
        #expect(CronSourceFile.kind(ofPath: "/etc/cron.d/sysstat") == .cronDirectory(name: "sysstat"))
        #expect(CronSourceFile.kind(ofPath: "/var/spool/cron/crontabs/alice") == .spool(user: "alice"))
        #expect(CronSourceFile.kind(ofPath: "/etc/jobd/jobs.d/backup.job") == nil)
        #expect(CronSourceFile.kind(ofPath: "/home/alice/crontab") == nil)
    }

    /// A cron.d line without its user field is broken at its line; the good line beside it is not.
    @Test func aSystemFilesLineWithoutAUserIsAnErrorAtItsLine() throws {
        let path = "/etc/cron.d/backup"
        let check = try Self.check("# backups\n* * * * * root true\n0 3 * * * /usr/local/bin/backup\n", path: path)
        #expect(check.errors.count == 1)
        #expect(check.errors.first?.hasPrefix("\(path):3: error: ") == true, "\(check.errors)")
        #expect(try Self.check("* * * * * root true\n", path: path).errors.isEmpty)
        // The same line in a user's crontab (no user field) is good.
        #expect(try Self.check("0 3 * * * /usr/local/bin/backup\n", path: "/var/spool/cron/crontabs/nobody", uid: 65534, permissions: 0o600).errors.isEmpty)
    }

    /// A file cron would not read at all (group-writable, a spool file of another owner) is one
    /// error naming cron's reason, and a bad schedule names what was expected.
    @Test func aFileCronWouldRefuseAndABadScheduleAreErrors() throws {
        let insecure = try Self.check("* * * * * root true\n", path: "/etc/cron.d/open", permissions: 0o664)
        #expect(insecure.errors.count == 1 && insecure.errors[0].hasPrefix("/etc/cron.d/open: error: not read, as cron would not: INSECURE MODE"), "\(insecure.errors)")
        let owner = try Self.check("* * * * * true\n", path: "/var/spool/cron/crontabs/nobody", uid: 33, permissions: 0o600)
        #expect(owner.errors.first?.contains("WRONG FILE OWNER") == true, "\(owner.errors)")
        let schedule = try Self.check("61 * * * * root true\n", path: "/etc/crontab")
        #expect(schedule.errors.first?.hasPrefix("/etc/crontab:1: error: ") == true, "\(schedule.errors)")
    }

    /// A file cron mode passes over, as cron does (a package's `NAME.dpkg-old` in cron.d, crontab's
    /// temporary file in the spool), is said to be one, with no error and no "no errors": a
    /// broken line in it never runs, and neither does a good one.
    @Test func aFileCronModePassesOverIsSaidToBeOne() throws {
        let old = try Self.check("61 * * * * root true\n", path: "/etc/cron.d/sysstat.dpkg-old")
        #expect(old.errors.isEmpty && old.warnings.isEmpty, "\(old)")
        #expect(old.notes == ["/etc/cron.d/sysstat.dpkg-old: note: cron mode does not read this file, as cron does not: "
            + "cron reads only the names of cron.d made of letters, digits, '_' and '-' (no dots: NAME.dpkg-old is a package's leftover)"])
        let temporary = try Self.check("* * * * * true\n", path: "/var/spool/cron/crontabs/tmp.XyZ123", permissions: 0o600)
        #expect(temporary.errors.isEmpty && temporary.notes.count == 1 && temporary.notes[0].contains("temporary files (tmp.*)"), "\(temporary)")
        #expect(try Self.check("* * * * * root true\n", path: "/etc/cron.d/sysstat").notes.isEmpty)
        // The spool's rule, which cron mode's reading and its watch share.
        #expect(CronSourceFile.countsInSpool("alice") && CronSourceFile.countsInSpool("tmpuser"))
        #expect(!CronSourceFile.countsInSpool("tmp.XyZ123") && !CronSourceFile.countsInSpool(".alice") && !CronSourceFile.countsInSpool(""))
    }
}

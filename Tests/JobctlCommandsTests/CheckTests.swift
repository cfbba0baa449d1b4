import Foundation
import JobdTestKit
import Testing

/// `jobctl check` (the built executable) on a whole directory and on single job files.
@Suite struct CheckTests {
    let jobctl = DaemonProcess.productsDirectory + "/jobctl"
    static let good = "[Job]\nOnUnitActiveSec=1h\nExecStart=/bin/true\n"
    static let broken = "[Job]\nOnUnitActiveSecs=1h\nExecStart=/bin/true\n"

    func check(_ arguments: [String]) throws -> CapturedProcess {
        try CapturedProcess.run(jobctl, ["check"] + arguments)
    }

    @Test func checksOneFileWithTheDirectorysJobdConf() throws {
        let config = try TemporaryConfiguration(jobs: ["good": Self.good, "broken": Self.broken])
        let good = config.path + "/jobs.d/good.job"
        let passed = try check([good])
        #expect(passed.status == 0, "\(passed.standardError)")
        #expect(passed.standardOutput.contains("\(good): 1 job(s), no errors") && passed.standardOutput.contains("good:"))

        // The other, broken file of the directory does not count...
        let broken = try check([config.path + "/jobs.d/broken.job"])
        #expect(broken.status == 1)
        #expect(broken.standardError.contains("broken.job:2:"), "\(broken.standardError)")
        #expect(broken.standardError.contains("did you mean 'OnUnitActiveSec='?"), "\(broken.standardError)")
        // ...but the directory's jobd.conf does, when there is one.
        try "[Daemon]\nMaxConcurrentRuns=many\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        let withConf = try check([good])
        #expect(withConf.status == 1 && withConf.standardError.contains("jobd.conf:2:"), "\(withConf.standardError)")
        let elsewhere = try TemporaryConfiguration()
        #expect(try check(["--config-dir", elsewhere.path, good]).status == 0)
    }

    /// Cron's files by location (issue 38): a cron.d file in the system format, each broken line
    /// as FILE:LINE, exit 1; /etc/crontab with a good line, exit 0; a file cron passes over, said so.
    @Test func cronsFilesAreCheckedAsCronModeReadsThem() throws {
        try Requirement.root("for cron's files to be root's, as cron requires")
        let root = NSTemporaryDirectory() + "jobctl-check-cron-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/etc/cron.d", withIntermediateDirectories: true)
        try "* * * * * root true\n0 3 * * * /usr/local/bin/backup\n".write(toFile: root + "/etc/cron.d/backup", atomically: false, encoding: .utf8)
        try "17 * * * * root cd / && run-parts --report /etc/cron.hourly\n".write(toFile: root + "/etc/crontab", atomically: false, encoding: .utf8)
        chmod(root + "/etc/cron.d/backup", 0o644)
        chmod(root + "/etc/crontab", 0o644)
        let broken = try check([root + "/etc/cron.d/backup", root + "/etc/crontab"])
        #expect(broken.status == 1)
        #expect(broken.standardError.contains(root + "/etc/cron.d/backup:2: error: '0 3 * * * /usr/local/bin/backup': the line has a schedule but no command"),
                "\(broken.standardError)")
        #expect(!broken.standardError.contains(":1: error"), "\(broken.standardError)")
        let good = try check([root + "/etc/crontab"])
        #expect(good.status == 0 && good.standardOutput.contains(root + "/etc/crontab: cron's file, no errors"), "\(good.standardError)")
        // A line that exits 1 in normal operation is warned about, unless jobd.conf says cron's exit statuses are not judged.
        try "17 * * * * root command -v true > /dev/null && true\n".write(toFile: root + "/etc/crontab", atomically: false, encoding: .utf8)
        let judged = try check(["--config-dir", root, root + "/etc/crontab"])
        #expect(judged.status == 0 && judged.standardError.contains(root + "/etc/crontab:1: warning: "), "\(judged.standardError)")
        try "[Cron]\nFailureResult=ignore\n".write(toFile: root + "/jobd.conf", atomically: false, encoding: .utf8)
        let ignored = try check(["--config-dir", root, root + "/etc/crontab"])
        #expect(ignored.status == 0 && ignored.standardError.isEmpty, "\(ignored.standardError)")
        // A package's leftover that cron mode passes over, as cron does: said to be one, not "no errors", and no error of its lines.
        try "61 * * * * root true\n".write(toFile: root + "/etc/cron.d/backup.dpkg-old", atomically: false, encoding: .utf8)
        let passedOver = try check([root + "/etc/cron.d/backup.dpkg-old"])
        #expect(passedOver.status == 0 && passedOver.standardOutput.contains("backup.dpkg-old: note: cron mode does not read this file")
                && !passedOver.standardOutput.contains("no errors") && passedOver.standardError.isEmpty, "\(passedOver.standardError)")
    }

    @Test func checksSeveralFilesFromAnywhere() throws {
        let one = try TemporaryConfiguration(jobs: ["a": Self.good])
        let two = try TemporaryConfiguration(jobs: ["b": Self.good, "c": Self.broken])
        let both = try check([one.path + "/jobs.d/a.job", two.path + "/jobs.d/b.job"])
        #expect(both.status == 0 && both.standardOutput.contains("2 files: 2 job(s), no errors"), "\(both.standardOutput)\(both.standardError)")
        let mixed = try check([one.path + "/jobs.d/a.job", two.path + "/jobs.d/c.job", two.path + "/missing.job"])
        #expect(mixed.status == 1)
        #expect(mixed.standardError.contains("c.job:2:") && mixed.standardError.contains("missing.job"), "\(mixed.standardError)")
        #expect(mixed.standardError.contains("error(s) in 2 file(s)"), "\(mixed.standardError)")
        let notAJob = try check([one.path + "/jobs.d"])
        #expect(notAJob.status == 1 && notAJob.standardError.contains("must end in .job"), "\(notAJob.standardError)")
    }

    @Test func checksTheWholeDirectoryWithoutFiles() throws {
        let config = try TemporaryConfiguration(jobs: ["a": Self.good, "b": Self.broken])
        let result = try check(["--config-dir", config.path])
        #expect(result.status == 1 && result.standardError.contains("b.job:2:"), "\(result.standardError)")
        try config.remove(job: "b")
        #expect(try check(["--config-dir", config.path]).standardOutput.contains("\(config.path): 1 job(s), no errors"))
    }
}

/// Issue 38: `jobctl check` warns about shell operators in a command that runs no shell, with the
/// line, and still exits 0: the file is valid.
@Suite struct ShellOperatorWarningTests {
    /// `jobctl check` of a configuration of `jobs` (name → file); it must exit 0.
    static func check(_ jobs: [String: String]) throws -> CapturedProcess {
        let config = try TemporaryConfiguration(jobs: jobs)
        let result = try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobctl", ["check", "--config-dir", config.path])
        #expect(result.status == 0, "\(result.standardError)")
        return result
    }

    @Test func aPipeOrRedirectionInACommandWithoutAShellIsWarnedAbout() throws {
        let result = try Self.check([
            "piped": "[Job]\nOnUnitActiveSec=1h\n\nExecStart=/usr/bin/du -sh /srv | tail -1\n",
            "quiet": "[Job]\nOnUnitActiveSec=1h\nExecStart=/usr/bin/updatedb 2>/dev/null\n",
            "shell": "[Job]\nOnUnitActiveSec=1h\nExecStart=/bin/sh -c 'du -sh /srv | tail -1 >/dev/null'\n",
            "find": "[Job]\nOnUnitActiveSec=1h\nExecStart=/usr/bin/find /tmp -name x -exec rm {} \\;\n",
            "quoted": "[Job]\nOnUnitActiveSec=1h\nExecStart=/usr/bin/printf %%s \"|\"\n",
        ])
        #expect(result.standardError.contains("piped.job:4: warning: ExecStart= runs no shell, so '|' reaches the program as an argument"),
                "\(result.standardError)")
        #expect(result.standardError.contains("quiet.job:3: warning: ExecStart= runs no shell, so '2>/dev/null'"), "\(result.standardError)")
        for quiet in ["shell.job", "find.job", "quoted.job"] { #expect(!result.standardError.contains(quiet), "\(quiet)") }
    }
}

/// Issue 40: `jobctl check` warns about a later timer key that changes nothing for its job, with
/// its line, and still exits 0.
@Suite struct IneffectiveTimerKeyWarningTests {
    @Test func aCalendarKeyOnAJobWithoutACalendarIsWarnedAbout() throws {
        let result = try ShellOperatorWarningTests.check([
            "interval": "[Job]\nOnUnitActiveSec=1h\nRandomizedOffsetSec=10min\nCatchUp=all\nExecStart=/bin/true\n",
            "fixed": "[Job]\nOnCalendar=daily\nFixedRandomDelay=yes\nExecStart=/bin/true\n",
            "fine": "[Job]\nOnCalendar=daily\nRandomizedOffsetSec=10min\nDeferReactivation=yes\nCatchUp=none\nExecStart=/bin/true\n",
        ])
        #expect(result.standardError.contains("interval.job:3: warning: RandomizedOffsetSec= has no effect: it acts on calendar slots, "
                                              + "and the job has no OnCalendar= or Cron="), "\(result.standardError)")
        #expect(result.standardError.contains("interval.job:4: warning: CatchUp= has no effect"), "\(result.standardError)")
        #expect(result.standardError.contains("fixed.job:3: warning: FixedRandomDelay= has no effect: RandomizedDelaySec= is 0"),
                "\(result.standardError)")
        #expect(!result.standardError.contains("fine.job"), "\(result.standardError)")
    }
}

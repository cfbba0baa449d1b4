import Foundation
import JobdConfig
import JobdImport
import JobdTestKit
import Testing

/// The real `jobctl import cron` and `jobctl check` on crontabs written here: what the import
/// reports written is what jobd loads (issue 26), files that would not load or that exist are not
/// written, and a user crontab's jobs run as its owner.
@Suite(.serialized) struct ImportCronCommandTests {
    static let jobctl = DaemonProcess.productsDirectory + "/jobctl"

    static func jobctl(_ arguments: [String]) throws -> CapturedProcess {
        try CapturedProcess.run(jobctl, arguments)
    }

    /// `NAME` of each `FILE:LINE: imported: NAME.job` line.
    static func imported(_ report: String) -> [String] {
        report.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: ": imported: "), line.hasSuffix(".job") else { return nil }
            return String(line[range.upperBound...].dropLast(4))
        }
    }

    static func argv(_ definition: JobDefinition) -> [String] {
        JobFile.literalWords(of: definition.command)
    }

    @Test func whatTheImportWritesIsWhatJobctlCheckAndJobdRead() throws {
        let config = try TemporaryConfiguration()
        let crontab = config.path + "/system.cron"
        let text = "SHELL=/bin/sh\r\n"
            + "GREETING = say \"hi\" to 'you', 100% of $HOME \\n ; x\n"
            + "HOME=/tmp\r\n"
            + "User=root\r\n"
            + "0 1 * * * nobody printf '\\%s\\n' \"$GREETING\" \\% $$ '\\\\' ; echo ' ; ' \\\r\n"
            + "@reboot root cat%first%100\\% $HOME%JOBD_STDIN%touch /tmp/never\n"
            + "*/5 * * * * root  echo \"${GREETING:-none}\" >/dev/null\n"
        try text.write(toFile: crontab, atomically: true, encoding: .utf8)
        let run = try Self.jobctl(["import", "cron", "--system", crontab, "--output", config.path + "/jobs.d"])
        #expect(run.status == 0, "\(run.standardError)")
        let names = Self.imported(run.standardError)
        #expect(names == ["printf", "cat", "echo"], "\(run.standardError)")
        #expect(run.standardError.hasSuffix("\(crontab): 3 job file(s) written in \(config.path)/jobs.d\n"), "\(run.standardError)")

        let check = try Self.jobctl(["check", "--config-dir", config.path])
        #expect(check.status == 0, "\(check.standardError)")
        #expect(check.standardOutput.hasPrefix("\(config.path): 3 job(s), no errors"), "\(check.standardOutput)")

        // jobd's loader, against the importer's own account of each job and against what the
        // crontab says, written out here.
        let loaded = try JobDirectory(path: config.path).loadConfiguration().get().jobs
        #expect(loaded.map(\.name).sorted() == names.sorted())
        let meant = CrontabImporter.convert(Array(text.utf8), options: CrontabImporter.Options(
            path: crontab, systemFormat: true, user: nil, homeDirectory: { _ in nil })).jobs
        for definition in loaded {
            guard let expected = meant.first(where: { $0.name == definition.name })?.expected else {
                Issue.record("\(definition.name): not among the importer's jobs")
                continue
            }
            #expect(definition.user == expected.user)
            #expect(Self.argv(definition) == expected.argv)
            #expect(definition.environment.map { "\($0.name)=\($0.value)" } == expected.environment.map { "\($0.name)=\($0.value)" })
        }
        let environment = ["SHELL=/bin/sh", "GREETING=say \"hi\" to 'you', 100% of $HOME \\n ; x", "HOME=/tmp", "User=root", "PATH=/usr/bin:/bin"]
        let printf = try #require(loaded.first { $0.name == "printf" })
        #expect(printf.user == "nobody")
        #expect(Set(printf.environment.map { "\($0.name)=\($0.value)" }) == Set(environment))
        #expect(printf.workingDirectory?.path == "/tmp")
        #expect(Self.argv(printf) == ["/bin/sh", "-c", "printf '%s\\n' \"$GREETING\" % $$ '\\' ; echo ' ; ' \\"])
        let cat = try #require(loaded.first { $0.name == "cat" })
        #expect(cat.user == "root")
        #expect(Self.argv(cat) == ["/bin/sh", "-c", "exec <<'JOBD_STDIN_2'\nfirst\n100% $HOME\nJOBD_STDIN\ntouch /tmp/never\nJOBD_STDIN_2\ncat"])
    }

    @Test func aFileThatWouldNotLoadOrExistsIsNotWrittenAndNotCounted() throws {
        let config = try TemporaryConfiguration()
        let crontab = config.path + "/system.cron"
        try "0 1 * * * root true\n0 2 * * * no-such-user-jobd false\n".write(toFile: crontab, atomically: true, encoding: .utf8)
        let jobs = config.path + "/jobs.d"
        let first = try Self.jobctl(["import", "cron", "--system", crontab, "-o", jobs])
        #expect(first.status == 1)
        #expect(first.standardError.contains("\(jobs)/false.job: not written: "), "\(first.standardError)")
        #expect(first.standardError.hasSuffix("\(crontab): 1 of 2 job file(s) written in \(jobs); see above for what was not carried over\n"),
                "\(first.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: jobs) == ["true.job"])

        try "# changed by hand\n".write(toFile: jobs + "/true.job", atomically: true, encoding: .utf8)
        let again = try Self.jobctl(["import", "cron", "--system", crontab, "-o", jobs])
        #expect(again.status == 1)
        #expect(again.standardError.contains("\(jobs)/true.job: error: the file exists and was not overwritten (--force overwrites it)"),
                "\(again.standardError)")
        #expect(again.standardError.contains(": 0 of 2 job file(s) written in"), "\(again.standardError)")
        #expect(try String(contentsOfFile: jobs + "/true.job", encoding: .utf8) == "# changed by hand\n")

        let forced = try Self.jobctl(["import", "cron", "--system", crontab, "-o", jobs, "--force"])
        #expect(forced.standardError.contains(": 1 of 2 job file(s) written in"), "\(forced.standardError)")
        #expect(try String(contentsOfFile: jobs + "/true.job", encoding: .utf8).contains("ExecStart=/bin/sh -c 'true'\n"))
    }

    /// Issue 38: two crontabs whose jobs get the same name clash: the second import reports the
    /// clash before it writes anything, --force or not, and the first's file stays as it was.
    @Test func aJobNameClashAcrossImportedFilesWritesNothing() throws {
        let config = try TemporaryConfiguration()
        let jobs = config.path + "/jobs.d"
        let (one, two) = (config.path + "/one.cron", config.path + "/two.cron")
        try "0 1 * * * root backup\n".write(toFile: one, atomically: true, encoding: .utf8)
        try "0 5 * * * root report\n30 2 * * * root backup\n".write(toFile: two, atomically: true, encoding: .utf8)
        #expect(try Self.jobctl(["import", "cron", "--system", one, "-o", jobs]).status == 0)
        try Self.expectClash(["import", "cron", "--system", two], jobs: jobs, job: "backup", first: one, source: two)
        // The same crontab again is no clash, however it is named: --force renews its own files.
        #expect(try Self.jobctl(["import", "cron", "--system", one, "-o", jobs, "--force"]).status == 0)
        let renamed = try Self.jobctl(["import", "cron", "--system", config.path + "/./one.cron", "-o", jobs, "--force"])
        #expect(renamed.status == 0 && !renamed.standardError.contains("clash"), "\(renamed.standardError)")
    }

    /// Issue 38: the clash is across kinds of import too: a timer whose job would take the name of
    /// a crontab line's job writes nothing, --force or not, and the crontab's job stays.
    @Test func aTimerWhoseJobACrontabsImportNamedWritesNothing() throws {
        let config = try TemporaryConfiguration()
        let (crontab, timer) = (config.path + "/rotate.cron", config.path + "/rotate.timer")
        for (path, text) in [(crontab, "# Rotate\n0 1 * * * root /usr/sbin/logrotate /etc/logrotate.conf\n"),
                             (timer, "[Timer]\nOnCalendar=daily\n"),
                             (config.path + "/rotate.service", "[Service]\nType=oneshot\nExecStart=/usr/sbin/logrotate /etc/logrotate.conf\n")] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(try Self.jobctl(["import", "cron", "--system", crontab, "-o", config.path + "/jobs.d"]).status == 0)
        try Self.expectClash(["import", "timer", timer], jobs: config.path + "/jobs.d", job: "rotate", first: crontab, source: timer)
    }

    /// Runs the import `arguments` into `jobs`, without and with --force: each time a clash with
    /// the JOB.job that `first` imported, said before anything is written, and nothing written.
    static func expectClash(_ arguments: [String], jobs: String, job: String, first: String, source: String) throws {
        let path = jobs + "/" + job + ".job"
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: jobs)
        for force in [[], ["--force"]] {
            let clash = try Self.jobctl(arguments + ["-o", jobs] + force)
            #expect(clash.status == 1)
            #expect(clash.standardError.contains("\(path): error: job name clash: the file was imported from \(first), not from \(source)"),
                    "\(clash.standardError)")
            #expect(clash.standardError.contains("\(source): nothing written"), "\(clash.standardError)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: jobs) == files, "no other job file is written either")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
        }
    }

    /// Cron reads the system format by location alone, and so does the import: a crontab
    /// elsewhere whose entries all name an account after the schedule is refused until --system
    /// says it is a system crontab (issue 37).
    @Test func aSystemCrontabOutsideEtcIsReadAsOneOnlyWithSystem() throws {
        let config = try TemporaryConfiguration()
        let crontab = config.path + "/backup"
        let jobs = config.path + "/jobs.d"
        try "# Nightly backup\n0 1 * * * nobody true\n@daily root echo hi\n".write(toFile: crontab, atomically: true, encoding: .utf8)
        let refused = try Self.jobctl(["import", "cron", crontab, "--prefix", "cron-", "-o", jobs])
        #expect(refused.status == 1, "\(refused.standardError)")
        #expect(refused.standardError.contains("\(crontab): error: every entry of \(crontab) has an account (nobody, root) after its schedule"),
                "\(refused.standardError)")
        #expect(refused.standardError.contains("import it with --system") && refused.standardError.contains("--user NAME"), "\(refused.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: jobs).isEmpty)

        let run = try Self.jobctl(["import", "cron", crontab, "--system", "--prefix", "cron-", "-o", jobs])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.standardError.contains("needs no import"), "a copy outside cron's places is not read by jobd in cron mode")
        #expect(try FileManager.default.contentsOfDirectory(atPath: jobs).sorted() == ["cron-echo.job", "cron-nightly-backup.job"])
        let loaded = try JobDirectory(path: config.path).loadConfiguration().get().jobs.sorted { $0.name < $1.name }
        #expect(loaded.map(\.user) == ["root", "nobody"])
        #expect(loaded.map { Self.argv($0) } == [["/bin/sh", "-c", "echo hi"], ["/bin/sh", "-c", "true"]])

        try "0 1 * * * nobody true\n0 2 * * * echo hi\n".write(toFile: crontab, atomically: true, encoding: .utf8)
        let mixed = try Self.jobctl(["import", "cron", crontab, "-o", config.path + "/mixed"])
        #expect(mixed.status == 1)
        #expect(mixed.standardError.contains("\(crontab): error: line 1 of \(crontab) has an account after the schedule"), "\(mixed.standardError)")
        #expect(!FileManager.default.fileExists(atPath: config.path + "/mixed"))
    }

    /// Issue 38: a file cron reads itself (e2fsprogs' /etc/cron.d/e2scrub_all on Debian) is
    /// imported, with a note that jobd in cron mode reads it with no import.
    @Test func aFileCronReadsItselfIsSaidToNeedNoImportInCronMode() throws {
        let packaged = try Requirement.tools("/etc/cron.d/e2scrub_all", for: "a cron.d file a Debian package ships")
        let run = try Self.jobctl(["import", "cron", packaged])
        #expect(run.standardError.contains("\(packaged): note: jobd in cron mode (the [Cron] section of jobd.conf, jobd.conf(5)) "
            + "reads this file itself, as cron does, and needs no import at all"), "\(run.standardError)")
        #expect(run.standardOutput.contains("[Job]"), "the import goes on: \(run.standardOutput)")
    }

    @Test func aRefusedLineImportsNothing() throws {
        let config = try TemporaryConfiguration()
        let crontab = config.path + "/user.cron"
        try "0 1 * * * true\nHOME=/tmp\rUser=root\n0 2 * * * id\n".write(toFile: crontab, atomically: true, encoding: .utf8)
        let run = try Self.jobctl(["import", "cron", crontab, "--user", "nobody", "-o", config.path + "/jobs.d"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("\(crontab):2: refused: the line holds a carriage return"), "\(run.standardError)")
        #expect(run.standardError.hasSuffix("\(crontab): nothing imported: a line above is refused\n"), "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: config.path + "/jobs.d").isEmpty)
    }

    @Test func aUserCrontabRunsAsItsOwnerAndRootsCopyNeedsUser() throws {
        try Requirement.root("to give a crontab to nobody")
        let config = try TemporaryConfiguration()
        let crontab = config.path + "/crontab"
        let jobs = config.path + "/jobs.d"
        try "0 1 * * * id -un\n".write(toFile: crontab, atomically: true, encoding: .utf8)

        // Owned by root, as a copy made with crontab -l -u NAME > FILE is: refused.
        let asRoot = try Self.jobctl(["import", "cron", crontab, "-o", jobs])
        #expect(asRoot.status == 1)
        #expect(asRoot.standardError.contains("\(crontab): error: \(crontab) is owned by root"), "\(asRoot.standardError)")
        #expect(asRoot.standardError.contains("--user root"), "\(asRoot.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: jobs).isEmpty)
        let fromStandardInput = try CapturedProcess.run("/bin/sh", ["-c", "\(Self.jobctl) import cron - < \(crontab)"])
        #expect(fromStandardInput.status == 1)
        #expect(fromStandardInput.standardError.contains("<stdin>: error: a crontab on standard input has no owner"),
                "\(fromStandardInput.standardError)")

        // Root's copy of alice's crontab whose every line names root after the schedule: to cron
        // that runs `root /home/alice/x` as alice and fails quietly, so planting it costs her
        // nothing. Never read as a system crontab, whoever owns it: refused, and with --user the
        // word is the command's, run as --user says (issue 37).
        let copy = config.path + "/alice.crontab"
        try "*/5 * * * * root /home/alice/x\n@daily root /home/alice/y\n".write(toFile: copy, atomically: true, encoding: .utf8)
        let planted = try Self.jobctl(["import", "cron", copy, "-o", jobs])
        #expect(planted.status == 1, "\(planted.standardError)")
        #expect(planted.standardError.contains("\(copy): error: every entry of \(copy) has an account (root) after its schedule"),
                "\(planted.standardError)")
        #expect(planted.standardError.hasSuffix("\(copy): nothing imported\n"), "\(planted.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: jobs).isEmpty)
        let copyAsUser = try Self.jobctl(["import", "cron", copy, "--user", "nobody", "-o", config.path + "/copy.d"])
        #expect(copyAsUser.status == 0 && copyAsUser.standardError.contains("read as a user crontab, as --user says"),
                "\(copyAsUser.standardError)")
        let copied = try FileManager.default.contentsOfDirectory(atPath: config.path + "/copy.d").sorted()
            .map { try String(contentsOfFile: config.path + "/copy.d/" + $0, encoding: .utf8) }
        #expect(copied.count == 2 && copied.allSatisfy { $0.contains("\nUser=nobody\n") && !$0.contains("User=root") }, "\(copied)")
        #expect(copied.contains { $0.contains("ExecStart=/bin/sh -c 'root /home/alice/x'\n") }, "\(copied)")

        // Owned by nobody: nobody's jobs.
        #expect(chown(crontab, 65_534, 65_534) == 0)
        let asOwner = try Self.jobctl(["import", "cron", crontab, "-o", jobs])
        #expect(asOwner.status == 0, "\(asOwner.standardError)")
        let job = try String(contentsOfFile: jobs + "/id.job", encoding: .utf8)
        #expect(job.contains("\nUser=nobody\n") && !job.contains("User=root"), "\(job)")

        // nobody's crontab that names root after every schedule, as a system crontab would: not
        // read as one, since root does not own it.
        let disguised = config.path + "/disguised"
        try "0 1 * * * root id -un\n@daily root true\n".write(toFile: disguised, atomically: true, encoding: .utf8)
        #expect(chown(disguised, 65_534, 65_534) == 0)
        let refused = try Self.jobctl(["import", "cron", disguised, "-o", config.path + "/disguised.d"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("\(disguised): error: every entry of \(disguised) has an account (root) after its schedule"),
                "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: config.path + "/disguised.d"))

        // --user says otherwise, and the import says whose the crontab was.
        let explicit = try Self.jobctl(["import", "cron", crontab, "--user", "root", "--force", "-o", jobs])
        #expect(explicit.status == 0, "\(explicit.standardError)")
        #expect(explicit.standardError.contains("\(crontab): note: \(crontab) is owned by nobody; its jobs run as root, as --user says"),
                "\(explicit.standardError)")
        #expect(try String(contentsOfFile: jobs + "/id.job", encoding: .utf8).contains("\nUser=root\n"))
    }
}

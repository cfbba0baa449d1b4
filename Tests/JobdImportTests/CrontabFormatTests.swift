import JobctlCommands
import JobdImport
import Testing

/// A system crontab told from its entries whatever its path, an unescaped `%` inside quotes or
/// `$(…)` warned about, and the MAILTO note naming where the examples are installed (issue 29).
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
        func decide(_ detection: CrontabFormat.Detection, byName: Bool = false, user: Bool = false) -> CrontabFormat.Decision {
            CrontabFormat.decide(detection, path: "backup", systemByName: byName, explicitUser: user)
        }
        #expect(decide(.user) == .read(systemFormat: false, note: nil))
        #expect(decide(.user, byName: true) == .read(systemFormat: true, note: nil))
        #expect(decide(mixed, byName: true) == .read(systemFormat: true, note: nil))
        guard case .read(true, let note?) = decide(system) else { Issue.record("\(decide(system))"); return }
        #expect(note.contains("read as a system crontab") && note.contains("--user"))
        guard case .read(false, let userNote?) = decide(system, user: true) else { Issue.record("\(decide(system, user: true))"); return }
        #expect(userNote.contains("as --user says"))
        guard case .refused(let reason) = decide(mixed) else { Issue.record("\(decide(mixed))"); return }
        #expect(reason.contains("lines 1, 3 of backup have an account") && reason.contains("line 2 does not") && reason.contains("--system")
                && reason.contains("--user"), "\(reason)")
        guard case .read(false, _) = decide(mixed, user: true) else { Issue.record("\(decide(mixed, user: true))"); return }
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

    @Test func theMailtoNoteNamesTheInstalledExamples() throws {
        #expect(ImportFiles.examplesDirectory(executable: "/usr/bin/jobctl") == "/usr/share/doc/jobd/examples")
        #expect(ImportFiles.examplesDirectory(executable: "/opt/jobd/bin/jobctl") == "/opt/jobd/share/doc/jobd/examples")
        #expect(ImportFiles.examplesDirectory(executable: "/work/jobd/.build/debug/jobctl") == "/usr/local/share/doc/jobd/examples")
        let result = CrontabImporter.convert("MAILTO=ops@example.com\n0 1 * * * true\n", options: CrontabImporter.Options(
            path: "crontab", systemFormat: false, user: "root", homeDirectory: { _ in "/root" },
            examplesDirectory: "/opt/jobd/share/doc/jobd/examples"))
        let job = try #require(result.jobs.first)
        #expect(job.comments.contains("/opt/jobd/share/doc/jobd/examples/mail-failure.job into /etc/jobd/jobs.d/, set its MAILTO=ops@example.com,"),
                "\(job.text)")
    }
}

import JobdConfig
import JobdImport
import Testing

/// Crontabs that try to put into a job file more than their jobs (issue 26): CR LF, a CR before a
/// `%`, a backslash at the end of a value, a `User=` line smuggled in a value, values with
/// quotes, backslashes, `%` and `$`. Each is refused with its line, or written so that jobd reads
/// back exactly the job cron would run, and nothing more.
struct CrontabSafetyTests {
    static func convert(_ text: String, user: String? = "nobody", systemFormat: Bool = false) -> CrontabImporter.Result {
        CrontabImporter.convert(Array(text.utf8), options: CrontabImporter.Options(
            path: "crontab", systemFormat: systemFormat, user: systemFormat ? nil : user, homeDirectory: { _ in "/home/test" }))
    }

    /// The job as jobd reads its file, failing the test when it does not load.
    static func read(_ job: JobFile) throws -> JobDefinition {
        switch JobFileReader.read(name: job.name, path: job.name + ".job", text: job.text) {
        case .success(let definition): return definition
        case .failure(let errors): throw errors
        }
    }

    static func argv(_ definition: JobDefinition) -> [String] {
        JobFile.literalWords(of: definition.command)
    }

    static func refusals(_ result: CrontabImporter.Result) -> [Int?] {
        result.report.entries.filter { $0.kind == .refused }.map(\.line)
    }

    @Test func crLfLinesLoseTheirCrAndTheImportSaysSo() throws {
        let result = Self.convert("SHELL=/bin/sh\r\nHOME=/tmp\r\n# a comment\r\n0 1 * * * echo hi\r\n\r\n5 1 * * * cat%in\r\n")
        #expect(Self.refusals(result).isEmpty, "\(result.report.entries)")
        #expect(result.jobs.count == 2)
        let first = try Self.read(result.jobs[0]), second = try Self.read(result.jobs[1])
        #expect(Self.argv(first) == ["/bin/sh", "-c", "echo hi"])
        #expect(Self.argv(second) == ["/bin/sh", "-c", "exec <<'JOBD_STDIN'\nin\nJOBD_STDIN\ncat"])
        #expect(first.workingDirectory?.path == "/tmp")
        #expect(first.environment.map(\.name) == ["PATH", "SHELL", "HOME"])
        #expect(first.environment.last?.value == "/tmp")
        // Said once, at the first command, not at the NAME=value lines (cron trims the CR there too).
        let notes = result.report.entries.filter { $0.kind == .note && $0.message.contains("CR LF") }
        #expect(notes.map(\.line) == [4], "\(result.report.entries)")
    }

    @Test(arguments: [
        // A CR before a `%` hid the here-document's end marker from a Character-based split.
        ("0 1 * * * cat %x\r%JOBD_STDIN%touch /tmp/pwned\n", 1),
        // A CR in the middle of a value: a terminal would show only what follows it.
        ("HOME=/tmp\rUser=root\n0 1 * * * id\n", 1),
        ("0 1 * * * echo a\u{1B}[2Kb\n", 1),
        ("0 1 * * * echo a\u{0}b\n", 1),
        ("0 1 * * * echo \u{85}\n", 1),
        // The value of HOME= becomes WorkingDirectory=, where a backslash would join the next line.
        ("HOME=/tmp\\\n0 1 * * * pwd\n", 1),
        ("HOME=\"/tmp\\\"\n0 1 * * * pwd\n", 1),
        ("GREETING=hello\\\n0 1 * * * pwd\n", 1),
        // HOME= with a blank at its start, which jobd would trim from WorkingDirectory=, or a tab.
        ("HOME=\" /tmp\"\n0 1 * * * pwd\n", 1),
        ("@daily true\nHOME=\"/srv/a\tb\"\n0 1 * * * pwd\n", 2),
    ])
    func linesThatWouldChangeTheJobFileAreRefused(crontab: String, line: Int) {
        let result = Self.convert(crontab)
        #expect(result.jobs.isEmpty, "\(result.jobs.map(\.text))")
        #expect(Self.refusals(result) == [line], "\(result.report.entries)")
    }

    @Test func invalidUTF8IsRefusedWithItsLine() {
        let bytes = Array("# caf\u{E9}\n0 1 * * * echo caf".utf8) + [0xE9] + Array("\n".utf8)
        let result = CrontabImporter.convert(bytes, options: CrontabImporter.Options(
            path: "crontab", systemFormat: false, user: "nobody", homeDirectory: { _ in "/" }))
        #expect(result.jobs.isEmpty)
        #expect(Self.refusals(result) == [2])
        #expect(result.report.entries.first { $0.kind == .refused }?.message.contains("byte 0xE9 at character 19") == true,
                "\(result.report.entries)")
    }

    @Test func aUserLineSmuggledAfterACrStaysAVariable() throws {
        // Cut at the byte "\n", the second line is cron's own NAME=value line: a variable named
        // User, never a key of the job file.
        let result = Self.convert("HOME=/tmp\r\nUser=root\n0 1 * * * id -un\n")
        #expect(Self.refusals(result).isEmpty)
        let job = try #require(result.jobs.first)
        #expect(job.assignments.filter { $0.key == "User" }.map(\.value) == ["nobody"])
        #expect(job.problems(path: "id.job").isEmpty, "\(job.text)")
        let definition = try Self.read(job)
        #expect(definition.user == "nobody")
        #expect(definition.environment.map { "\($0.name)=\($0.value)" } == ["PATH=/usr/bin:/bin", "SHELL=/bin/sh", "HOME=/tmp", "User=root"])
    }

    @Test func valuesWithQuotesBackslashesPercentAndDollarReadBackExactly() throws {
        let crontab = #"""
            GREETING = say "hi" to 'you', 100% of $HOME \n back\slash ; x
            EMPTY=""
            0 1 * * * printf '\%s|' "$GREETING" \% 50\% $$ '\\' "a\\b" ; echo ' ; ' \
            @daily cd /tmp && echo "${GREETING:-none}"%line one%100\% $HOME%

            """#
        let result = Self.convert(crontab)
        #expect(!result.report.hasLosses, "\(result.report.entries)")
        #expect(result.jobs.count == 2)
        let printf = try Self.read(result.jobs[0])
        #expect(printf.environment.first { $0.name == "GREETING" }?.value == #"say "hi" to 'you', 100% of $HOME \n back\slash ; x"#)
        #expect(printf.environment.first { $0.name == "EMPTY" }?.value == "")
        // cron: `\%` is a percent sign before the first `%`, `\\` one backslash; the rest as written.
        #expect(Self.argv(printf) == ["/bin/sh", "-c", #"printf '%s|' "$GREETING" % 50% $$ '\' "a\b" ; echo ' ; ' \"#])
        #expect(printf.description == #"cron: printf '%s|' "$GREETING" % 50% $$ '\' "a\b" ; echo ' ; '"#)
        let echo = try Self.read(result.jobs[1])
        #expect(Self.argv(echo) == ["/bin/sh", "-c", "exec <<'JOBD_STDIN'\nline one\n100% $HOME\nJOBD_STDIN\ncd /tmp && echo \"${GREETING:-none}\""])
        for job in result.jobs { #expect(job.problems(path: job.name + ".job").isEmpty, "\(job.text)") }
    }

    @Test func theLastLineWithoutANewlineIsNotImportedAsCronNeverReadsIt() {
        let result = Self.convert("0 1 * * * echo one\n0 2 * * * echo two")
        #expect(result.jobs.count == 1)
        #expect(result.report.entries.contains { $0.kind == .notCarriedOver && $0.line == 2 && $0.message.contains("no newline") })
    }

    @Test func commentsCarryNoLineOfTheirOwn() {
        var job = JobFile(name: "x")
        // Built by hand as a hostile caller would; the importer itself never passes such text.
        job.set("ExecStart", "/bin/true")
        job.comment("a\nUser=root\rb\u{1B}c")
        let text = job.text
        #expect(text.hasPrefix("# a\n# User=root\\x0db\\x1bc\n[Job]\n"), "\(text)")
    }

    @Test func theCheckFindsWhatAJobFileWouldReadOtherwise() {
        func problems(_ assignments: [(String, String)], user: String? = "nobody") -> [String] {
            var job = JobFile(name: "check")
            for (key, value) in assignments { job.set(key, value) }
            job.expected = ExpectedJob(
                schedule: "0 1 * * *", user: user, workingDirectory: ("/tmp", true), environment: [("A", "1")],
                argv: ["/bin/sh", "-c", "true"], description: nil)
            return job.problems(path: "check.job")
        }
        let good: [(String, String)] = [
            ("Cron", "0 1 * * *"), ("User", "nobody"), ("WorkingDirectory", "-/tmp"), ("Environment", "\"A=1\""), ("ExecStart", "/bin/sh -c true"),
        ]
        #expect(problems(good).isEmpty)
        // A value with a newline makes a second line, and a key of its own.
        var smuggled = good
        smuggled[3] = ("Environment", "\"A=1\"\nUser=root")
        #expect(problems(smuggled).contains("User= is assigned 2 times"), "\(problems(smuggled))")
        // A backslash at the end joins the next line to the value.
        var continued = good
        continued[2] = ("WorkingDirectory", "-/tmp\\")
        #expect(problems(continued).contains { $0.contains("reads back as") }, "\(problems(continued))")
        // Reads back as written, but not as the job meant.
        #expect(problems(good, user: "root").contains { $0.hasPrefix("User= reads as") }, "\(problems(good, user: "root"))")
        var expanded = good
        expanded[4] = ("ExecStart", "/bin/sh -c ${A}")
        #expect(problems(expanded).contains { $0.hasPrefix("the command reads as") }, "\(problems(expanded))")
    }
}

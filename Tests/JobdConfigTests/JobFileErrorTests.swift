import JobdConfig
import Testing

/// Every kind of job-file error names the file and the line, and says what was expected.
@Suite struct JobFileErrorTests {
    let path = "/etc/jobd/jobs.d/backup.job"

    func errors(_ text: String, name: String = "backup") -> [ConfigError] {
        switch JobFileReader.read(name: name, path: path, text: text) {
        case .success: return []
        case .failure(let errors): return errors.errors
        }
    }

    @Test func unknownKeySuggestsTheKeyThatWasMeant() throws {
        let found = errors("""
            [Job]
            ExecStart=/bin/true
            OnUnitActiveSecs=5s
            OnStartupSec=1s
            """)
        let error = try #require(found.first)
        #expect(found.count == 1)
        #expect(error.file == path)
        #expect(error.line == 3)
        #expect(error.description.hasPrefix("\(path):3: error: unknown key 'OnUnitActiveSecs=' in [Job]"))
        #expect(error.hint == "did you mean 'OnUnitActiveSec='?")
    }

    @Test(arguments: [
        ("execstart", "ExecStart"), ("OnStartUpSec", "OnStartupSec"), ("Enviroment", "Environment"),
        ("WorkingDir", "WorkingDirectory"), ("Descripton", "Description"), ("OnUnitInactivSec", "OnUnitInactiveSec"),
    ])
    func misspellingsAreMatched(written: String, meant: String) throws {
        let found = errors("[Job]\nExecStart=/bin/true\nOnStartupSec=1\n\(written)=x\n")
        let error = try #require(found.first)
        #expect(error.line == 4)
        #expect(error.hint == "did you mean '\(meant)='?")
    }

    @Test func unrelatedUnknownKeyPointsToTheManual() throws {
        let error = try #require(errors("[Job]\nExecStart=/bin/true\nOnStartupSec=1\nColour=blue\n").first)
        #expect(error.line == 4)
        #expect(error.hint == "jobd.job(5) lists every key a job file takes")
    }

    @Test func unknownSectionIsNamed() throws {
        let found = errors("""
            [Job]
            ExecStart=/bin/true
            OnStartupSec=1
            [Timer]
            OnCalendar=daily
            """)
        #expect(found.contains { $0.line == 4 && $0.message == "unknown section [Timer]" })
    }

    @Test func misspelledSectionIsMatched() throws {
        let found = errors("[job]\nExecStart=/bin/true\nOnStartupSec=1\n")
        #expect(found.contains { $0.line == 1 && $0.hint == "did you mean [Job]?" })
    }

    @Test func badTimeSpanSaysWhatWasExpected() throws {
        let error = try #require(errors("[Job]\nExecStart=/bin/true\n\nOnUnitActiveSec=5 parsecs\n").first)
        #expect(error.line == 4)
        #expect(error.message.contains("invalid time span '5 parsecs'"))
        #expect(error.hint?.contains("90s") == true)
    }

    @Test func missingExecStartPointsAtTheSection() throws {
        let found = errors("# nightly backup\n\n[Job]\nOnUnitActiveSec=1h\n")
        let error = try #require(found.first)
        #expect(found.count == 1)
        #expect(error.line == 3)
        #expect(error.message == "the job has no ExecStart=")
        #expect(error.hint?.contains("ExecStart=/") == true)
    }

    /// A job with no trigger runs only when another job's `OnFailure=`/`OnSuccess=` or `jobctl run`
    /// starts it: a notifier is such a job.
    @Test func jobWithoutATriggerIsValid() throws {
        let definition = try JobFileReader.read(
            name: "notify", path: "/etc/jobd/jobs.d/notify.job", text: "[Job]\nExecStart=/bin/true\nOnStartupSec=5\nOnStartupSec=\n").get()
        #expect(definition.triggers.isEmpty)
    }

    @Test func missingJobSection() throws {
        let error = try #require(errors("ExecStart=/bin/true\n").first)
        #expect(error.line == 1)
        #expect(error.message.contains("outside any section"))
    }

    @Test func lineThatIsNotAnAssignment() throws {
        let error = try #require(errors("[Job]\nExecStart=/bin/true\nOnStartupSec=1\nrun it now please\n").first)
        #expect(error.line == 4)
        #expect(error.message == "expected an assignment 'Key=value', found 'run it now please'")
    }

    @Test func relativeExecutable() throws {
        let error = try #require(errors("[Job]\nOnStartupSec=1\nExecStart=bin/backup --all\n").first)
        #expect(error.line == 3)
        #expect(error.message.contains("relative path"))
    }

    @Test func unbalancedQuote() throws {
        let error = try #require(errors("[Job]\nOnStartupSec=1\nExecStart=/bin/echo \"hello\n").first)
        #expect(error.line == 3)
        #expect(error.message.contains("unbalanced double quote"))
    }

    @Test func unsupportedPrefixAndSpecifier() throws {
        #expect(try #require(errors("[Job]\nOnStartupSec=1\nExecStart=+/bin/true\n").first).message
            .contains("'+' prefix"))
        #expect(try #require(errors("[Job]\nOnStartupSec=1\nExecStart=/bin/echo %n\n").first).message
            .contains("the specifier '%n' is not supported"))
    }

    @Test func twoExecStartsPointAtTheSecond() throws {
        let error = try #require(errors("[Job]\nOnStartupSec=1\nExecStart=/bin/true\nExecStart=/bin/false\n").first)
        #expect(error.line == 4)
    }

    @Test func badEnvironmentAssignment() throws {
        let error = try #require(errors("[Job]\nOnStartupSec=1\nExecStart=/bin/true\nEnvironment=GOOD=1 2BAD=x\n").first)
        #expect(error.line == 4)
        #expect(error.message.contains("'2BAD=x' is not an assignment"))
    }

    @Test func relativeWorkingDirectory() throws {
        let error = try #require(errors("[Job]\nOnStartupSec=1\nExecStart=/bin/true\nWorkingDirectory=tmp\n").first)
        #expect(error.line == 4)
        #expect(error.message.contains("absolute path"))
    }

    @Test func invalidJobName() throws {
        let error = try #require(errors("[Job]\nOnStartupSec=1\nExecStart=/bin/true\n", name: "my job").first)
        #expect(error.line == nil)
        #expect(error.description.hasPrefix("\(path): error: 'my job' is not a valid job name"))
    }

    @Test func everyErrorInAFileIsReportedInLineOrder() {
        let found = errors("""
            [Job]
            OnStartupSec=soon
            ExecStart=relative/path
            Foo=bar
            """)
        #expect(found.map(\.line) == [2, 3, 4])
    }
}

@Suite struct CalendarKeyErrorTests {
    func errors(_ text: String) -> [ConfigError] {
        switch JobFileReader.read(name: "j", path: "/j.job", text: text) {
        case .success: []
        case .failure(let errors): errors.errors
        }
    }

    @Test func badCalendarAndCronValuesNameTheLine() throws {
        let calendar = try #require(errors("[Job]\nExecStart=/bin/true\nOnCalendar=Mon..Fry 9:00\n").first)
        #expect(calendar.line == 3)
        #expect(calendar.message.contains("OnCalendar=") && calendar.message.contains("Mon..Fry"))
        #expect(calendar.hint?.contains("jobctl calendar") == true)
        let cron = try #require(errors("[Job]\nExecStart=/bin/true\nCron=61 * * * *\n").first)
        #expect(cron.line == 3)
        #expect(cron.hint?.contains("--cron") == true)
        let persistent = try #require(errors("[Job]\nExecStart=/bin/true\nOnCalendar=daily\nPersistent=maybe\n").first)
        #expect(persistent.line == 4)
    }
}

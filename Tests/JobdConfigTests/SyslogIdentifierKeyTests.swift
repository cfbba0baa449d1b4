import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile

/// `SyslogIdentifier=` (systemd.exec(5)): the identifier of a run's output lines in the journal.
struct SyslogIdentifierKeyTests {
    static let path = "/etc/jobd/jobs.d/backup.job"

    static func read(_ lines: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "backup", path: path, text: "[Job]\nOnCalendar=daily\nExecStart=/bin/true\n" + lines)
    }

    @Test func theValueIsKeptAndAnEmptyOneResetsIt() throws {
        #expect(try Self.read("").get().syslogIdentifier == nil)
        #expect(try Self.read("SyslogIdentifier=nightly-backup\n").get().syslogIdentifier == "nightly-backup")
        #expect(try Self.read("SyslogIdentifier=pg_dump@15-main\n").get().syslogIdentifier == "pg_dump@15-main")
        #expect(try Self.read("SyslogIdentifier=a\nSyslogIdentifier=\n").get().syslogIdentifier == nil)
        // A different identifier is a different job: a reload replaces its owner.
        #expect(try Self.read("SyslogIdentifier=a\n").get() != Self.read("SyslogIdentifier=b\n").get())
    }

    @Test(arguments: [
        ("SyslogIdentifier=%n", "specifiers"),
        ("SyslogIdentifier=two words", "letters, digits"),
        ("SyslogIdentifier=jobd", "jobd's own entries"),
        ("SyslogIdentifier=" + String(repeating: "x", count: 33), "at most 32"),
    ])
    func badValuesAreErrorsNamingTheLine(line: String, hint: String) throws {
        guard case .failure(let errors) = Self.read(line + "\n") else {
            Issue.record("\(line) was accepted")
            return
        }
        let error = try #require(errors.errors.first)
        #expect(error.file == Self.path && error.line == 4)
        #expect(error.message.hasPrefix("SyslogIdentifier=: '") && error.message.hasSuffix("' is not an identifier jobd takes"), "\(error)")
        #expect(error.hint?.contains(hint) == true, "\(error)")
    }
}

import JobdImport
import Testing

/// Which crontab lines are environment settings, which are commands, as Debian's cron reads them
/// (its `load_env`: blanks at the end of a value go, also inside quotes, and so does a second pair
/// of quotes; an empty unquoted value makes no setting).
struct CrontabLineTests {
    @Test(arguments: [
        ("A=b", "A", "b"),
        ("A = b", "A", "b"),
        ("  A=b c  ", "A", "b c"),
        ("A=\" b \"", "A", " b"),
        ("A=' b '  ", "A", " b"),
        ("B=\"'x'\"", "B", "x"),
        ("B='\"x\" '", "B", "x"),
        ("B=''", "B", ""),
        ("\"A B\"=c", "A B", "c"),
        ("MAILTO=\"\"", "MAILTO", ""),
        ("A=b=c", "A", "b=c"),
        ("PATH=/usr/bin:/bin", "PATH", "/usr/bin:/bin"),
    ])
    func environmentLines(line: String, name: String, value: String) {
        #expect(CrontabLine.parse(Substring(line), systemFormat: false) == .environment(name: name, value: value))
    }

    @Test func linesThatAreNotEnvironmentSettings() {
        #expect(CrontabLine.parse("* * * * * A=b cmd", systemFormat: false)
            == .job(schedule: "* * * * *", user: nil, commandText: "A=b cmd"))
        #expect(CrontabLine.parse("@daily  echo a=b", systemFormat: false) == .job(schedule: "@daily", user: nil, commandText: "echo a=b"))
        #expect(CrontabLine.parse("A=\"b\" c", systemFormat: false) == .invalid("expected five time fields and a command"))
        #expect(CrontabLine.parse("A=", systemFormat: false) == .invalid("expected five time fields and a command"))
        #expect(CrontabLine.parse("A =  ", systemFormat: false) == .invalid("expected five time fields and a command"))
        #expect(CrontabLine.parse("  # A=b", systemFormat: false) == .ignored)
        #expect(CrontabLine.parse("", systemFormat: false) == .ignored)
    }

    @Test func systemCrontabsNameTheUser() {
        #expect(CrontabLine.parse("17 *\t* * *\troot    cd / && run-parts --report /etc/cron.hourly", systemFormat: true)
            == .job(schedule: "17 * * * *", user: "root", commandText: "cd / && run-parts --report /etc/cron.hourly"))
        #expect(CrontabLine.parse("@reboot root  echo  x ", systemFormat: true)
            == .job(schedule: "@reboot", user: "root", commandText: "echo  x "))
        #expect(CrontabLine.parse("* * * * * root", systemFormat: true) == .invalid("the line has a schedule but no command"))
    }
}

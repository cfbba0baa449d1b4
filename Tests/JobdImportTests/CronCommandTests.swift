import JobdImport
import Testing

/// cron's `%` rule, case by case, as Debian's cron applies it.
struct CronCommandTests {
    @Test(arguments: [
        // (crontab text, command, standard input)
        ("echo hi", "echo hi", nil),
        ("echo 100\\%", "echo 100%", nil),
        ("echo a\\\\b", "echo a\\b", nil),
        ("echo a\\nb", "echo a\\nb", nil),
        ("cat%", "cat", ""),
        ("cat%one", "cat", "one\n"),
        ("cat%one%two", "cat", "one\ntwo\n"),
        ("cat%one%", "cat", "one\n"),
        ("cat%%", "cat", "\n"),
        ("cat%a\\%b", "cat", "a%b\n"),
        ("cat%a\\\\%b", "cat", "a\\%b\n"),
        ("cat%a\\nb", "cat", "a\\nb\n"),
        ("cat%a\\", "cat", "a\\\n"),
        ("cat%\\", "cat", "\\"),
        ("cat%a%\\", "cat", "a\n\\"),
        ("echo \\\\%in", "echo \\", "in\n"),
        ("echo '%'", "echo '", "'\n"),
    ] as [(String, String, String?)])
    func splitsAsDebiansCron(text: String, command: String, input: String?) {
        let split = CronCommand(cronText: text)
        #expect(split.command == command)
        #expect(split.standardInput == input)
    }
}

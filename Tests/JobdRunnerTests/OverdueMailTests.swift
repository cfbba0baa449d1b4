import JobdCalendar
import JobdConfig
import JobdRunner
import Testing

/// The mail of a job that fell overdue (`ExpectSuccessWithinSec=` with `MailTo=`, issue 40 item 3):
/// cron's subject with "(overdue)", so that mail filters written for cron keep working, and a body
/// that says since when and where to look.
@Suite struct OverdueMailTests {
    @Test func theMailSaysTheJobIsOverdueSinceWhenAndWhereToLook() throws {
        let definition = try JobFileReader.read(name: "backup", path: "/etc/jobd/jobs.d/backup.job", text: """
            [Job]
            ExecStart=/usr/bin/backup --all
            OnCalendar=daily
            ExpectSuccessWithinSec=25h
            MailTo=ops@example.org
            MailOn=failure
            """).get()
        // Last success 2026-01-01 00:00 UTC, overdue since 2026-01-02 01:00 UTC.
        let mail = RunMail.overdue(definition, deadline: RealtimeInstant(seconds: 1_767_315_600),
                                   lastSuccess: RealtimeInstant(seconds: 1_767_225_600), account: nil)
        let text = String(decoding: mail.message, as: UTF8.self)
        #expect(mail.recipients == ["ops@example.org"])
        #expect(text.contains("\nTo: ops@example.org\n") && text.contains("\nX-Jobd-Job: backup\n"), "\(text)")
        #expect(text.contains("> /usr/bin/backup --all (overdue)\n"), "\(text)")
        #expect(text.contains("ExpectSuccessWithinSec=1d 1h") && text.contains("2026-01-01 00:00:00") && text.contains("2026-01-02 01:00:00"), "\(text)")
        #expect(text.contains("jobctl status backup"))
    }
}

package import JobdCalendar
package import JobdConfig
import JobdLogging
import Logging

extension RunMail {
    /// The mail of a job that fell overdue (`ExpectSuccessWithinSec=`), to its `MailTo=`: whatever
    /// its `MailOn=` says, since the alarm is the point of the key. No run ended, so no output.
    package static func overdue(
        _ definition: JobDefinition, deadline: RealtimeInstant, lastSuccess: RealtimeInstant?, account: Account?
    ) -> RunMail {
        let span = definition.expectSuccessWithin.map(String.init(describing:)) ?? "?"
        let since = lastSuccess.map { "its last success, at \(TimestampFormat.utcTimestamp($0))" } ?? "when it entered the configuration (it never succeeded)"
        let body = """
            Job \(definition.name) has not succeeded within its ExpectSuccessWithinSec=\(span), counted from \(since): \
            it is overdue since \(TimestampFormat.utcTimestamp(deadline)).
            jobd says so once, until a run of it succeeds. Why it did not: jobctl status \(definition.name), and
            journalctl JOB=\(definition.name) JOBD_EVENT=run.skip + JOB=\(definition.name) JOBD_EVENT=run.exit

            """
        let fields = [JobdField.job: definition.name, JobdField.deadlineUSec: String(deadline.microseconds)]
        // The subject is cron's, with (overdue) where a failed run's has (failed): filters keep working.
        let message = message(
            recipients: definition.mailTo, user: userName(account), host: shortHostName(), command: definition.command.text,
            job: definition.name, runID: "", failed: false, output: Array(body.utf8), omitted: 0, marker: " (overdue)")
        return RunMail(recipients: definition.mailTo, message: message, account: account, fields: fields, content: "overdue alarm")
    }
}

extension JobRunner {
    /// Mails `definition`'s `MailTo=` that the job fell overdue at `deadline`, as its `User=` (looked
    /// up on a thread of its own, as a run's account is); logs `run.mail` as a run's mail does.
    package func mailOverdue(
        _ definition: JobDefinition, deadline: RealtimeInstant, lastSuccess: RealtimeInstant?, sendmail: String
    ) async {
        guard !definition.mailTo.isEmpty else { return }
        let account: Account?
        switch await driver.resolveAccount(definition) {
        case .success(let resolved): account = resolved
        case .failure(let error):
            logger.event(.runMail, level: .warning, "\(definition.name)'s overdue alarm was not mailed: \(error)", [JobdField.job: definition.name])
            return
        }
        await mail(RunMail.overdue(definition, deadline: deadline, lastSuccess: lastSuccess, account: account), sendmail: sendmail)
    }
}

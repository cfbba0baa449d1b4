/// Where a job that jobd reads from cron's files (``CronSettings``) came from, and what cron's
/// mail of its output needs that the job's definition does not say: the subject's user and
/// command as the crontab has them, the `X-Cron-Env:` headers, `MAILTO` as written and `MAILFROM`.
package struct CronOrigin: Sendable, Hashable {
    /// The crontab: `/etc/crontab`, a file of `/etc/cron.d`, or a user's in the spool.
    package var file: String
    /// The line, for messages only: a line moved within its file is the same job (its name is
    /// made from its text), so two origins that differ only here are equal.
    package var line: Int
    /// `LOGNAME`: who the command runs as, the subject's `USER`.
    package var user: String
    /// The command as cron runs it: before its first unescaped `%`, `\%` made `%` (the subject's `COMMAND`).
    package var command: String
    /// The environment as cron builds it for the line, `NAME=value` in cron's order (the
    /// crontab's variables above it, then `SHELL`, `HOME`, `PATH` where it set none, and `LOGNAME`).
    package var environment: [String]
    /// `MAILTO` as written (the `To:` header); `nil` when the crontab sets none.
    package var mailTo: String?
    /// `MAILFROM` as written; `nil` when the crontab sets none.
    package var mailFrom: String?

    package init(file: String, line: Int, user: String, command: String, environment: [String], mailTo: String?, mailFrom: String?) {
        self.file = file
        self.line = line
        self.user = user
        self.command = command
        self.environment = environment
        self.mailTo = mailTo
        self.mailFrom = mailFrom
    }

    package static func == (lhs: CronOrigin, rhs: CronOrigin) -> Bool {
        (lhs.file, lhs.user, lhs.command, lhs.environment, lhs.mailTo, lhs.mailFrom)
            == (rhs.file, rhs.user, rhs.command, rhs.environment, rhs.mailTo, rhs.mailFrom)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(file)
        hasher.combine(command)
        hasher.combine(environment)
    }
}

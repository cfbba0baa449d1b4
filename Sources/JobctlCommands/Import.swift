package import ArgumentParser

extension Jobctl {
    /// `jobctl import`: turns crontabs and systemd timers into job files. The conversion is
    /// `JobdImport`'s; these commands read, write and report.
    package struct Import: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Convert crontabs and systemd timers into job files.",
            discussion: """
                Each subcommand writes job files into --output DIR (or prints them), and reports on \
                standard error every line or key and what could not be carried over. Before a job \
                file is written it is read back with jobd's own reader, as jobctl check reads it: \
                a file that does not load, assigns a key twice that takes one value, or does not \
                read back as exactly the job meant (command, user, environment, schedule) is not \
                written, and neither is one that exists in DIR, unless --force. Read the report, \
                then copy the files into /etc/jobd/jobs.d/ and run systemctl reload jobd. Exit \
                status: 0 everything carried over and written, 1 something was not (the summary \
                counts only the files written), 64 invalid arguments.
                """,
            subcommands: [Cron.self, Timer.self])

        package init() {}
    }
}

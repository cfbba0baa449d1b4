package import ArgumentParser

extension Jobctl {
    /// `jobctl import`: turns crontabs and systemd timers into job files. The conversion is
    /// `JobdImport`'s; these commands read, write and report.
    package struct Import: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Convert crontabs and systemd timers into job files.",
            discussion: """
                Each subcommand writes job files into --output DIR (or prints them), reports on \
                standard error every line or key and what could not be carried over, checks each \
                job file as jobctl check does, and exits 1 if anything could not be carried over \
                or a job file does not pass the check. The files are written either way: read the \
                report, then copy them into /etc/jobd/jobs.d/ and run systemctl reload jobd. Exit \
                status: 0 everything carried over, 1 something was not (or a file fails the check), \
                64 invalid arguments.
                """,
            subcommands: [Cron.self, Timer.self])

        package init() {}
    }
}

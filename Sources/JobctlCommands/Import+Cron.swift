import ArgumentParser
import Foundation
import Glibc
import JobdImport

extension Jobctl.Import {
    /// `jobctl import cron`: one job file per crontab line.
    struct Cron: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cron",
            abstract: "Convert a crontab into job files, one per command line.",
            discussion: """
                Reads a user crontab (crontab -l output), /etc/crontab or an /etc/cron.d file. \
                FILE is read in the system format (a user field after the schedule) when it is \
                /etc/crontab or in /etc/cron.d/, or with --system; otherwise as a user crontab whose \
                jobs run as --user.

                Each job runs the command as Debian's cron does: Cron= with the same schedule (or \
                @reboot, @daily...), User=, WorkingDirectory= the user's home (or the crontab's \
                HOME=), Environment= with cron's PATH=/usr/bin:/bin and SHELL=/bin/sh and the \
                crontab's NAME=value lines above the command, Overlap=parallel, and \
                ExecStart=/bin/sh -c '...' (or the crontab's SHELL=) with the command exactly as cron \
                passes it: text after the first unescaped % is the command's standard input (given \
                through a here-document), later %s are newlines, \\% is a percent sign.

                Job names come from the command (its program, or run-parts' directory), with -2, \
                -3... for repeats: the same crontab gives the same names.

                Not carried over, and reported: MAILTO= (jobd mails nothing; the job file says what \
                to do), CRON_TZ= (Cron= has no time zone; TZ= is set for the command, as cron does), \
                % input that ends in a backslash with no newline (the job's gets a newline), lines \
                cron or jobd would reject. jobd writes a job's output to the journal, where cron \
                mailed it.
                """)

        @Argument(help: ArgumentHelp("The crontab; - or nothing for standard input.", valueName: "FILE"))
        var file = "-"

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the job files into DIR instead of printing them.", valueName: "DIR"))
        var output: String?

        @Option(help: ArgumentHelp("The user a user crontab's jobs run as (default: you; a system crontab names its own).", valueName: "USER"))
        var user: String?

        @Flag(help: "Read FILE as a system crontab, with a user field after the schedule.")
        var system = false

        @Flag(help: "Overwrite job files that exist in DIR.")
        var force = false

        func run() throws {
            let text = try ImportFiles.read(file)
            let path = file == "-" ? "<stdin>" : file
            let systemFormat = system || file == "/etc/crontab" || file.hasPrefix("/etc/cron.d/")
            let options = CrontabImporter.Options(
                path: path, systemFormat: systemFormat, user: systemFormat ? nil : user ?? ImportFiles.currentUser(),
                homeDirectory: ImportFiles.homeDirectory)
            let result = CrontabImporter.convert(text, options: options)
            var standardError = StandardError()
            for line in result.report.lines(path: path) { print(line, to: &standardError) }
            let failed = ImportFiles.emit(result.jobs, into: output, force: force)
            print("\(path): \(result.jobs.count) job file(s)\(output.map { " in \($0)" } ?? "")"
                  + (result.report.hasLosses || failed ? "; see above for what was not carried over" : ""),
                  to: &standardError)
            if result.report.hasLosses || failed { throw ExitCode(1) }
        }
    }
}

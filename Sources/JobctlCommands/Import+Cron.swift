import ArgumentParser
import Glibc
import JobdConfig
import JobdImport

extension Jobctl.Import {
    /// `jobctl import cron`: one job file per crontab line.
    struct Cron: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cron",
            abstract: "Convert a crontab into job files, one per command line.",
            discussion: """
                Reads a user crontab (crontab -l output), /etc/crontab or an /etc/cron.d file. \
                As cron, the import decides the format by location, never by content: FILE is read \
                in the system format (a user field after the schedule) only when it is \
                /etc/crontab or directly in /etc/cron.d/, or with --system; any other file, and \
                standard input, is a user crontab. One whose entries, all or some, have an \
                existing account and a command after the schedule is refused unless --system or \
                --user says which it is.

                A user crontab's jobs run as --user, or else as the crontab's own account: NAME for \
                /var/spool/cron/crontabs/NAME (owned by NAME or root, as cron requires), the \
                file's owner for any other file, you for standard input. A file owned by root \
                outside the spool, or standard input read as root, is refused: a copy of another \
                user's crontab made as root is root's too, so --user must say whose it is \
                (--user root for root's).

                The crontab is cut into lines at each newline byte; a CR at the end of a line is \
                dropped (Debian's cron drops it after NAME=value but hands it to the shell at the \
                end of a command, and the import notes that). A line that holds any other control \
                character (a CR before its end, a NUL, an escape...) or is not UTF-8, a value \
                ending in a backslash, and a user or HOME= that a job file cannot hold as it is \
                are refused with the line: nothing is imported from such a crontab.

                Each job runs the command as Debian's cron does: Cron= with the same schedule (or \
                @reboot, @daily...), User=, WorkingDirectory= the user's home (or the crontab's \
                HOME=), Environment= with cron's PATH=/usr/bin:/bin and SHELL=/bin/sh and the \
                crontab's NAME=value lines above the command, Overlap=parallel, and \
                ExecStart=/bin/sh -c '...' (or the crontab's SHELL=) with the command exactly as cron \
                passes it: text after the first unescaped % is the command's standard input (given \
                through a here-document), later %s are newlines, \\% is a percent sign.

                Job names come from a comment line directly above the entry (# Nightly backup: \
                nightly-backup), else from the command (its program, or run-parts' directory), \
                after --prefix, with -2, -3... for repeats: the same crontab gives the same names. \
                A % inside quotes, backquotes or $(...) that is not escaped gets a warning: cron \
                ends the command there, and so does the job. CRON_TZ=Zone puts the zone after the \
                schedules below it (Cron=0 6 * * * Europe/Berlin), which elapse as cronie \
                schedules them (Debian's cron ignores CRON_TZ); TZ= is set for the command, as \
                cron does.

                A file cron reads itself (/etc/crontab, /etc/cron.d/NAME, \
                /var/spool/cron/crontabs/USER) is imported with a note: jobd in cron mode reads it \
                as it is and needs no import, and an imported copy would run each line twice.

                MAILTO= becomes MailTo= (cron's recipients; the crontab's owner where MAILTO is \
                unset; none for MAILTO=""), so that a job's output is mailed as cron mails it, and \
                it is in the journal too. Not carried over, and reported: \
                % input that ends in a backslash with no newline (the job's gets a newline), lines \
                cron or jobd would reject, a last line with no newline after it (cron never \
                reads it).
                """)

        @Argument(help: ArgumentHelp("The crontab; - or nothing for standard input.", valueName: "FILE"))
        var file = "-"

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the job files into DIR instead of printing them.", valueName: "DIR"))
        var output: String?

        @Option(help: ArgumentHelp(
            "The user a user crontab's jobs run as (default: the crontab's own: see above; a system crontab names its own).",
            valueName: "USER"))
        var user: String?

        @Flag(help: "Read FILE as a system crontab, with a user field after the schedule.")
        var system = false

        @Option(help: ArgumentHelp("Put PREFIX before every job's name, such as cron- or backup-.", valueName: "PREFIX"))
        var prefix = ""

        @Flag(help: "Overwrite job files that exist in DIR.")
        var force = false

        /// `jobctl --user import cron`: the caller's own crontab into jobs of their own, each sent
        /// to jobd as `jobctl --user edit` sends it.
        @Flag(name: .customLong("own"), help: .hidden)
        var own = false

        @OptionGroup var runtime: RuntimeOptions

        func validate() throws {
            if own, system || user != nil || output != nil {
                throw ValidationError("jobctl --user import cron imports your own crontab into jobd: no --system, --user or --output")
            }
            if system, user != nil {
                throw ValidationError("--user is for a user crontab: a system crontab names the user on each line")
            }
            if !prefix.isEmpty, !JobFileReader.isValidJobName(prefix) || prefix.contains(":") {
                throw ValidationError("--prefix '\(prefix)' can start no job name: use letters, digits and '_.@-' only")
            }
        }

        func run() throws {
            var standardError = StandardError()
            let path = file == "-" ? "<stdin>" : file
            let bytes = try ImportFiles.readBytes(file)
            let detection = CrontabFormat.detect(bytes) { ImportFiles.account(named: $0) != nil }
            let systemByName = system || CrontabFormat.isSystemPath(file)
            func note(_ text: String?) {
                if let text { print("\(path): note: \(text)", to: &standardError) }
            }
            func refusal(_ reason: String) -> ExitCode {
                print("\(path): error: \(reason)\n\(path): nothing imported", to: &standardError)
                return ExitCode(1)
            }
            // The file as named, and where it really is (a relative name, a link to it).
            let real = file == "-" ? nil : ImportFiles.realPath(file)
            if file != "-", CrontabFormat.isCronSource(file) || real.map(CrontabFormat.isCronSource) == true { note(CrontabFormat.cronModeNote) }
            let source = try ImportFiles.crontabSource(file)
            let ownerUID: UInt32? = if case .file(_, let uid, _, _, _) = source { uid } else { nil }
            let systemFormat: Bool
            switch CrontabFormat.decide(detection, path: path, systemByName: systemByName, explicitUser: user != nil, ownerUID: ownerUID) {
            case .refused(let reason): throw refusal(reason)
            case .read(let system, let text): note(text); systemFormat = system
            }
            if own, systemFormat { throw refusal("a system crontab names users; import your own crontab (crontab -l)") }
            var account: String?
            if !systemFormat {
                switch CrontabAccount.decide(explicitUser: own ? UserScope.userName : user, source: source) {
                case .refused(let reason): throw refusal(reason)
                case .user(let name, let text): note(text); account = name
                }
            }
            let options = CrontabImporter.Options(
                path: path, systemFormat: systemFormat, user: account, homeDirectory: ImportFiles.homeDirectory,
                namePrefix: prefix)
            let result = CrontabImporter.convert(bytes, options: options)
            for line in result.report.lines(path: path) { print(line, to: &standardError) }
            if result.report.hasRefusals {
                print("\(path): nothing imported: a line above is refused", to: &standardError)
                throw ExitCode(1)
            }
            let (written, failed) = own ? try ImportFiles.send(result.jobs, runtime: runtime, force: force)
                : ImportFiles.emit(result.jobs, into: output, force: force, source: path)
            let count = written == result.jobs.count ? "\(written)" : "\(written) of \(result.jobs.count)"
            print("\(path): \(count) job file(s) \(own ? "taken by jobd as your jobs" : output.map { "written in \($0)" } ?? "printed")"
                  + (result.report.hasLosses || failed ? "; see above for what was not carried over" : ""),
                  to: &standardError)
            if result.report.hasLosses || failed { throw ExitCode(1) }
        }
    }
}

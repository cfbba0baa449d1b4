import JobdCalendar
import JobdConfig

/// Converts a crontab into job files, one per command line, that run the command as Debian's cron
/// would: the same schedule (`Cron=`), user, environment, working directory, shell, and standard
/// input from `%`. Pure: the caller reads the file and looks up home directories.
package enum CrontabImporter {
    package struct Options: Sendable {
        /// The crontab's path, for comments and the report.
        package var path: String
        /// `/etc/crontab` and `/etc/cron.d` files: a user field follows the schedule.
        package var systemFormat: Bool
        /// The owner of a user crontab: the `User=` of every job (ignored in the system format).
        package var user: String?
        /// A user's home directory, where cron starts the command (`nil`: unknown).
        package var homeDirectory: @Sendable (String) -> String?
        /// Put before every job's name (`--prefix`).
        package var namePrefix: String
        /// Whether `CRON_TZ` zones the schedules below it, as cronie reads it; Debian's cron
        /// (jobd's cron mode) passes it to the command as any variable.
        package var zonesCronTZ = true

        package init(
            path: String, systemFormat: Bool, user: String?, homeDirectory: @escaping @Sendable (String) -> String?,
            namePrefix: String = ""
        ) {
            self.path = path
            self.systemFormat = systemFormat
            self.user = user
            self.homeDirectory = homeDirectory
            self.namePrefix = namePrefix
        }
    }

    package struct Result: Sendable {
        package var jobs: [JobFile] = []
        package var report = ImportReport()
    }

    /// cron's own settings for every command, before the crontab's (crontab(5)).
    static let cronPath = "/usr/bin:/bin"
    static let cronShell = "/bin/sh"

    /// Converts the crontab `text`; see ``convert(_:options:)-([UInt8],_)``.
    package static func convert(_ text: String, options: Options) -> Result {
        convert(Array(text.utf8), options: options)
    }

    /// Converts the crontab's bytes, cut into lines at each byte `\n` (``CrontabText``). When any
    /// line is refused, the result has no jobs at all: a crontab that hides something is not
    /// imported in part.
    package static func convert(_ bytes: [UInt8], options: Options) -> Result {
        var result = Result()
        var environment: [(name: String, value: String, line: Int)] = []
        var naming = JobNaming(prefix: options.namePrefix)
        var notedCarriageReturn = false
        // The comment line directly above the line being read, which may name its job.
        var commentAbove: String?
        if let user = options.user, let problem = JobFile.plainValueProblem(user) {
            result.report.add(.refused, line: nil, "the user '\(user)' cannot be written as User=: \(problem)")
        }
        for line in CrontabText.lines(bytes) {
            let number = line.number
            let comment = commentAbove
            commentAbove = line.isComment && line.text.contains("#") ? line.text : nil
            if line.isComment { continue }
            if let problem = line.problem {
                result.report.add(.refused, line: number, problem)
                continue
            }
            if line.isUnterminated {
                result.report.add(.notCarriedOver, line: number,
                                  "'\(line.text)': cron never reads a last line that no newline ends (crontab -e refuses the file); "
                                  + "end the file with a newline if the line is meant")
                continue
            }
            switch CrontabLine.parse(Substring(line.text), systemFormat: options.systemFormat) {
            case .ignored:
                continue
            case .invalid(let reason):
                result.report.add(.notCarriedOver, line: number, "'\(line.text)': \(reason)")
            case .environment(let name, let value):
                if value.hasSuffix("\\") {
                    result.report.add(.refused, line: number,
                                      "the value of \(name) ends with a backslash, which a job file would read as joining the next line to it; remove it")
                    continue
                }
                // HOME= becomes the WorkingDirectory= of the jobs below, which jobd reads as written.
                if name == "HOME", let problem = JobFile.plainValueProblem(value) {
                    result.report.add(.refused, line: number, "HOME=\(value) cannot be written as WorkingDirectory=: \(problem)")
                    continue
                }
                environment.removeAll { $0.name == name }
                environment.append((name, value, number))
                reportEnvironment(name: name, value: value, line: number, into: &result.report)
            case .job(let schedule, let user, let commandText):
                do {
                    _ = try CronSpec.parse(schedule)
                } catch {
                    result.report.add(.notCarriedOver, line: number, "'\(schedule)' is not a schedule jobd reads: \(error)")
                    continue
                }
                if let user, let problem = JobFile.plainValueProblem(user) {
                    result.report.add(.refused, line: number, "the user field '\(user)' cannot be written as User=: \(problem)")
                    continue
                }
                if line.endedInCarriageReturn && !notedCarriageReturn {
                    notedCarriageReturn = true
                    result.report.add(.note, line: number,
                                      "the crontab's lines end in CR LF: Debian's cron hands the CR to the shell at the end of each command "
                                      + "(where it usually breaks the command), and drops it after a NAME=value; the jobs run their commands without it")
                }
                if let context = CronCommand.quotedPercent(in: commandText) {
                    result.report.add(.warning, line: number,
                                      "a % \(context) is not escaped: cron ends the command at it and gives the rest as standard input, "
                                      + "and so does the job; write \\% where a percent sign is meant")
                }
                if let test = CronCommand.failingTestIdiom(CronCommand(cronText: commandText).command) {
                    result.report.add(.warning, line: number,
                                      "the command ends in '\(test) && …': where the test fails, cron ran nothing and said nothing, "
                                      + "but the status is 1, which jobd counts as a failure (OnFailure=, MailOn=failure, jobctl list --failed); "
                                      + "write 'if \(test); then …; fi', or add '|| true'")
                }
                let name = naming.name(for: CronCommand(cronText: commandText).command, comment: comment)
                result.jobs.append(convertJob(
                    line: line.text, number: number, schedule: schedule, user: user ?? options.user,
                    commandText: commandText, name: name, environment: environment, options: options,
                    report: &result.report))
            }
        }
        if result.report.hasRefusals { result.jobs = [] }
        return result
    }

    private static func reportEnvironment(name: String, value: String, line: Int, into report: inout ImportReport) {
        if !isVariableName(name) {
            report.add(.notCarriedOver, line: line, "'\(name)' cannot be an Environment= name (letters, digits and '_' only)")
        } else {
            report.add(.imported, line: line, "\(name)=\"\(value)\" as Environment= of the jobs below")
        }
        switch name {
        case "MAILTO" where value.isEmpty:
            report.add(.note, line: line, "MAILTO=\"\": the jobs below mail nothing, as with cron")
        case "MAILTO" where !MailPolicy.isSafeRecipient(value):
            report.add(.note, line: line,
                       "MAILTO=\(value) is not an address cron mails to (a letter or digit first, then letters, digits and "
                       + "@!:%-._+=/): cron mails nothing for the jobs below, nor will jobd")
        case "MAILTO":
            report.add(.imported, line: line, "MAILTO=\(value) as MailTo= of the jobs below: their output is mailed as cron mails it")
        case "CRON_TZ" where value.isEmpty:
            report.add(.note, line: line, "CRON_TZ is empty: the jobs below follow jobd's local zone, as cronie's do")
        case "CRON_TZ" where zoned("* * * * *", zone: value) == nil:
            report.add(.notCarriedOver, line: line,
                       "CRON_TZ=\(value) names no time zone jobd knows (such as Europe/Berlin): the jobs below follow jobd's local zone")
        case "CRON_TZ":
            report.add(.note, line: line,
                       "CRON_TZ=\(value): the jobs below elapse in \(value) (Cron=… \(value)) as cronie schedules them; "
                       + "Debian's cron ignores CRON_TZ and runs them in its local time")
        case "TZ":
            report.add(.note, line: line, "TZ=\(value) is set for the commands below; their schedules follow jobd's local zone, as with cron")
        case "SHELL" where value != cronShell:
            report.add(.note, line: line, "the commands below run with \(value) -c, as cron runs them")
        default:
            break
        }
    }

    /// Who cron mails a job's output to: `MAILTO`, split at its commas (sendmail's list), or the
    /// crontab's owner when it is unset; `nil` when cron mails nothing.
    static func mailRecipients(_ mailto: String?, user: String?) -> String? {
        guard let mailto else { return user.flatMap { MailPolicy.isSafeRecipient($0) ? $0 : nil } }
        guard !mailto.isEmpty, MailPolicy.isSafeRecipient(mailto) else { return nil }
        return mailto.split(separator: ",").joined(separator: " ")
    }

    /// The job file of the crontab line `number` (`line`), named `name`, under the variables set above it.
    static func convertJob(
        line: String, number: Int, schedule: String, user: String?, commandText: String, name: String,
        environment: [(name: String, value: String, line: Int)], options: Options, report: inout ImportReport
    ) -> JobFile {
        let command = CronCommand(cronText: commandText)
        let variables = Dictionary(environment.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        let shell = variables["SHELL"]?.value ?? cronShell
        // cron starts the command in $HOME: the crontab's HOME=, else the user's.
        var workingDirectory: String?
        if let home = variables["HOME"] {
            if !home.value.hasPrefix("/") {
                report.add(.notCarriedOver, line: number, "HOME=\(home.value) is not an absolute path: WorkingDirectory= left out")
            } else {
                workingDirectory = home.value
            }
        } else if let home = user.flatMap(options.homeDirectory) {
            if let problem = JobFile.plainValueProblem(home) {
                report.add(.notCarriedOver, line: number, "the home directory '\(home)' of \(user ?? "") cannot be written as WorkingDirectory=: \(problem)")
            } else if home.hasPrefix("/") {
                workingDirectory = home
            }
        } else {
            report.add(.notCarriedOver, line: number,
                       "the home directory of \(user ?? "the crontab's owner") is unknown here: cron would start the command there; "
                       + "add WorkingDirectory= to the job file")
        }

        var job = JobFile(name: name)
        job.comment("Imported by jobctl import cron from \(options.path), line \(number):")
        job.comment("  \(line)")
        let description = description(of: command.command)
        job.set("Description", description)
        // cron mails any output to MAILTO, or to the crontab's owner without one; MAILTO="" (or one
        // cron finds unsafe) mails nothing.
        if let recipients = mailRecipients(variables["MAILTO"]?.value, user: user) {
            job.set("MailTo", recipients)
        }
        // cronie's CRON_TZ: the schedule is matched in that zone (Cron= takes it after the fields).
        let cron = options.zonesCronTZ ? variables["CRON_TZ"].flatMap { zoned(schedule, zone: $0.value) } ?? schedule : schedule
        job.set("Cron", cron)
        if schedule == "@reboot" {
            report.add(.note, line: number, "@reboot: jobd runs \(job.name) once when it first starts in a boot")
        }
        if let user { job.set("User", user) }
        if let workingDirectory { job.set("WorkingDirectory", "-" + workingDirectory) }
        var jobEnvironment: [(name: String, value: String)] = []
        if variables["PATH"] == nil { jobEnvironment.append(("PATH", cronPath)) }
        if variables["SHELL"] == nil { jobEnvironment.append(("SHELL", cronShell)) }
        for variable in environment where isVariableName(variable.name) {
            jobEnvironment.append((variable.name, variable.value))
        }
        for variable in jobEnvironment {
            job.set("Environment", SystemdQuoting.environmentAssignment(name: variable.name, value: variable.value))
        }
        // cron starts a command even while its previous run is still going.
        job.set("Overlap", "parallel")
        let script = script(for: command, shell: shell, line: number, report: &report)
        job.set("ExecStart", SystemdQuoting.shellCommand(shell, script: script))
        job.expected = ExpectedJob(
            schedule: cron, user: user, workingDirectory: workingDirectory.map { ($0, true) }, environment: jobEnvironment,
            argv: [shell, "-c", script], description: description)
        report.add(.imported, line: number, "\(job.name).job")
        return job
    }

    /// The shell script that gets the same standard input as cron gives the command: a here-document
    /// made the shell's standard input (`exec <<'MARK'`), then the command as cron passes it.
    static func script(for command: CronCommand, shell: String, line: Int, report: inout ImportReport) -> String {
        guard var input = command.standardInput, !input.isEmpty else { return command.command }
        if ["csh", "tcsh", "fish"].contains(shell.split(separator: "/").last.map(String.init) ?? shell) {
            report.add(.notCarriedOver, line: line, "the % input cannot be given through \(shell); the job gets none")
            return command.command
        }
        if !input.hasSuffix("\n") {
            report.add(.notCarriedOver, line: line,
                       "the % input ends in a backslash without a newline; the job's input gets a newline after it")
            input += "\n"
        }
        // Lines as the shell reads them: at each "\n" scalar, never at Characters ("\r\n" is one).
        let inputLines = Set(input.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(Substring($0)) })
        var marker = "JOBD_STDIN"
        var counter = 2
        while inputLines.contains(marker) {
            marker = "JOBD_STDIN_\(counter)"
            counter += 1
        }
        return "exec <<'\(marker)'\n\(input)\(marker)\n\(command.command)"
    }

    /// `SCHEDULE ZONE` when jobd reads that as a schedule in `zone`; `nil` for `@reboot`, an empty
    /// or unknown zone.
    static func zoned(_ schedule: String, zone: String) -> String? {
        guard !zone.isEmpty, schedule != "@reboot", !zone.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
        let text = schedule + " " + zone
        guard case .schedule(let parsed)? = try? CronSpec.parse(text), parsed.zone != nil else { return nil }
        return text
    }

    private static func description(of command: String) -> String {
        var text = String(String.UnicodeScalarView(command.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        if text.count > 60 { text = String(text.prefix(57)) + "..." }
        // jobd reads Description= as written: a trailing backslash would continue the line, and
        // blanks at the end would be trimmed.
        var description = ("cron: " + text).unicodeScalars
        while let last = description.last, last == "\\" || CrontabLine.isBlank(last) { description.removeLast() }
        return String(description)
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !(first.properties.numericType == .decimal) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType == .decimal) }
    }
}

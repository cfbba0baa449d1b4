import JobdCalendar

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

        package init(path: String, systemFormat: Bool, user: String?, homeDirectory: @escaping @Sendable (String) -> String?) {
            self.path = path
            self.systemFormat = systemFormat
            self.user = user
            self.homeDirectory = homeDirectory
        }
    }

    package struct Result: Sendable {
        package var jobs: [JobFile] = []
        package var report = ImportReport()
    }

    /// cron's own settings for every command, before the crontab's (crontab(5)).
    static let cronPath = "/usr/bin:/bin"
    static let cronShell = "/bin/sh"

    package static func convert(_ text: String, options: Options) -> Result {
        var result = Result()
        var environment: [(name: String, value: String)] = []
        var naming = JobNaming()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            let number = index + 1
            switch CrontabLine.parse(line, systemFormat: options.systemFormat) {
            case .ignored:
                continue
            case .invalid(let reason):
                result.report.add(.notCarriedOver, line: number, "'\(line)': \(reason)")
            case .environment(let name, let value):
                environment.removeAll { $0.name == name }
                environment.append((name, value))
                reportEnvironment(name: name, value: value, line: number, into: &result.report)
            case .job(let schedule, let user, let commandText):
                do {
                    _ = try CronSpec.parse(schedule)
                } catch {
                    result.report.add(.notCarriedOver, line: number, "'\(schedule)' is not a schedule jobd reads: \(error)")
                    continue
                }
                let job = convertJob(
                    line: String(line), number: number, schedule: schedule, user: user ?? options.user,
                    commandText: commandText, environment: environment, options: options,
                    naming: &naming, report: &result.report)
                result.jobs.append(job)
            }
        }
        return result
    }

    private static func reportEnvironment(name: String, value: String, line: Int, into report: inout ImportReport) {
        if !isVariableName(name) {
            report.add(.notCarriedOver, line: line, "'\(name)' cannot be an Environment= name (letters, digits and '_' only)")
        } else {
            report.add(.imported, line: line, "\(name)=\"\(value)\" as Environment= of the jobs below")
        }
        switch name {
        case "MAILTO" where !value.isEmpty:
            report.add(.notCarriedOver, line: line,
                       "MAILTO=\(value): jobd mails nothing; each job below says in a comment what to do instead")
        case "CRON_TZ":
            report.add(.notCarriedOver, line: line,
                       "CRON_TZ=\(value): jobd's Cron= has no time zone, so the jobs below follow jobd's local zone "
                       + "(as with Debian's cron, which ignores CRON_TZ; other crons schedule in it)")
        case "TZ":
            report.add(.note, line: line, "TZ=\(value) is set for the commands below; their schedules follow jobd's local zone, as with cron")
        case "SHELL" where value != cronShell:
            report.add(.note, line: line, "the commands below run with \(value) -c, as cron runs them")
        default:
            break
        }
    }

    private static func convertJob(
        line: String, number: Int, schedule: String, user: String?, commandText: String,
        environment: [(name: String, value: String)], options: Options,
        naming: inout JobNaming, report: inout ImportReport
    ) -> JobFile {
        let command = CronCommand(cronText: commandText)
        let variables = Dictionary(environment, uniquingKeysWith: { $1 })
        let shell = variables["SHELL"] ?? cronShell
        var job = JobFile(name: naming.name(for: command.command))
        job.comment("Imported by jobctl import cron from \(options.path), line \(number):")
        job.comment("  \(line)")
        if let mailto = variables["MAILTO"], !mailto.isEmpty {
            job.comment("MAILTO=\(mailto): cron mailed this job's output to \(mailto). jobd writes it to the journal")
            job.comment("(jobctl logs \(job.name)). To be mailed when it fails: copy the example notifier")
            job.comment("/usr/share/doc/jobd/examples/mail-failure.job into /etc/jobd/jobs.d/, set its MAILTO=\(mailto),")
            job.comment("and remove the '#' from the next line.")
            job.comment("OnFailure=mail-failure")
        }
        job.set("Description", description(of: command.command))
        job.set("Cron", schedule)
        if schedule == "@reboot" {
            report.add(.note, line: number, "@reboot: jobd runs \(job.name) once when it first starts in a boot")
        }
        if let user { job.set("User", user) }
        // cron starts the command in $HOME: the crontab's HOME=, else the user's.
        if let home = variables["HOME"] ?? user.flatMap(options.homeDirectory) {
            if home.hasPrefix("/") {
                job.set("WorkingDirectory", "-" + home)
            } else {
                report.add(.notCarriedOver, line: number, "HOME=\(home) is not an absolute path: WorkingDirectory= left out")
            }
        } else {
            report.add(.notCarriedOver, line: number,
                       "the home directory of \(user ?? "the crontab's owner") is unknown here: cron would start the command there; "
                       + "add WorkingDirectory= to \(job.name).job")
        }
        if variables["PATH"] == nil { job.set("Environment", SystemdQuoting.environmentAssignment(name: "PATH", value: cronPath)) }
        if variables["SHELL"] == nil { job.set("Environment", SystemdQuoting.environmentAssignment(name: "SHELL", value: cronShell)) }
        for variable in environment where isVariableName(variable.name) {
            job.set("Environment", SystemdQuoting.environmentAssignment(name: variable.name, value: variable.value))
        }
        // cron starts a command even while its previous run is still going.
        job.set("Overlap", "parallel")
        job.set("ExecStart", SystemdQuoting.shellCommand(
            shell, script: script(for: command, shell: shell, line: number, report: &report)))
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
        let inputLines = Set(input.split(separator: "\n", omittingEmptySubsequences: false))
        var marker = "JOBD_STDIN"
        var counter = 2
        while inputLines.contains(Substring(marker)) {
            marker = "JOBD_STDIN_\(counter)"
            counter += 1
        }
        return "exec <<'\(marker)'\n\(input)\(marker)\n\(command.command)"
    }

    private static func description(of command: String) -> String {
        var text = String(command.unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) })
        if text.count > 60 { text = String(text.prefix(57)) + "..." }
        // A trailing backslash would continue the line in a job file.
        while text.hasSuffix("\\") || text.hasSuffix(" ") { text.removeLast() }
        return "cron: " + text
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !(first.properties.numericType == .decimal) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType == .decimal) }
    }
}

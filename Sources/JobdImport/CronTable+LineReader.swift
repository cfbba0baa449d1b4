import JobdCalendar
import JobdConfig

extension CronTable {
    /// Reads a file's lines in order, keeping the variables set so far as cron keeps them
    /// (`env_set`: a name set again keeps its place, with the new value).
    struct LineReader {
        let source: CronSourceFile
        let owner: String?
        /// The crontab's user's uid (a spool crontab's, looked up once its file passed cron's
        /// checks): the job is that account's, as a user's job file (``JobDefinition/owningUID``).
        let ownerUID: UInt32?
        let failureResult: CronSettings.FailureResult
        let account: (String) -> Account?
        private var variables: [(name: String, value: String, line: Int)] = []
        /// Variable lines that cannot be carried over: each breaks the lines below it.
        private var variableErrors: [String] = []
        private var occurrences: [String: Int] = [:]

        init(
            source: CronSourceFile, owner: String?, ownerUID: UInt32?, failureResult: CronSettings.FailureResult,
            account: @escaping (String) -> Account?
        ) {
            self.source = source
            self.owner = owner
            self.ownerUID = ownerUID
            self.failureResult = failureResult
            self.account = account
        }

        mutating func read(_ line: CrontabText.Line, into result: inout Result) {
            let fingerprint = CronTable.fingerprint(line.text)
            occurrences[fingerprint, default: 0] += 1
            let name = CronTable.jobName(source.kind, text: line.text, occurrence: occurrences[fingerprint] ?? 1)
            func broken(_ message: String, hint: String? = nil) {
                result.broken.append(.init(name: name, owner: owner, ownerUID: ownerUID, path: source.path,
                                           errors: [ConfigError(file: source.path, line: line.number, message: message, hint: hint)]))
            }
            if let problem = line.problem { return broken(problem) }
            if line.isUnterminated {
                return broken("'\(line.text)': cron never reads a last line that no newline ends", hint: "end the file with a newline")
            }
            switch CrontabLine.parse(Substring(line.text), systemFormat: source.kind.systemFormat) {
            case .ignored:
                return
            case .invalid(let reason):
                broken("'\(line.text)': \(reason)", hint: source.kind.systemFormat
                       ? "write five time fields (or an @ name), the user, then the command" : "write five time fields (or an @ name), then the command")
            case .environment(let name, let value):
                setVariable(name, value, line: line.number)
            case .job(let schedule, let userField, let commandText):
                guard let user = userField ?? owner else { return broken("the line names no user") }
                do {
                    _ = try CronSpec.parse(schedule)
                } catch {
                    return broken("'\(schedule)' is not a schedule: \(error)", hint: "see crontab(5)")
                }
                if let problem = JobFile.plainValueProblem(user) { return broken("the user field '\(user)' cannot be a user: \(problem)") }
                guard let account = account(user) else {
                    return broken("there is no user \(user)", hint: "name an existing user after the schedule")
                }
                if !variableErrors.isEmpty { return broken(variableErrors.joined(separator: "; ")) }
                switch definition(name: name, line: line, schedule: schedule, user: user, home: account.home, commandText: commandText) {
                case .success(let definition):
                    result.jobs.append(definition)
                    if let context = CronCommand.quotedPercent(in: commandText) {
                        result.warnings.append(ConfigError(
                            file: source.path, line: line.number,
                            message: "\(name): a % \(context) is not escaped: cron ends the command at it and gives the rest as "
                                + "standard input, and so does jobd", hint: "write \\% where a percent sign is meant"))
                    }
                    if failureResult == .judge, let test = CronCommand.failingTestIdiom(definition.cron?.command ?? "") {
                        result.warnings.append(ConfigError(
                            file: source.path, line: line.number,
                            message: "\(name) ends in '\(test) && …': where the test fails, cron ran nothing and said nothing, but the "
                                + "status is 1, which jobd counts as a failure",
                            hint: "write 'if \(test); then …; fi', add '|| true', or set FailureResult=ignore in [Cron] of jobd.conf"))
                    }
                case .failure(let error): broken(error.message, hint: error.hint)
                }
            }
        }

        private mutating func setVariable(_ name: String, _ value: String, line: Int) {
            if value.hasSuffix("\\") {
                variableErrors.append("line \(line): the value of \(name) ends with a backslash, which jobd cannot pass on")
            } else if name == "HOME", JobFile.plainValueProblem(value) != nil || !value.hasPrefix("/") {
                variableErrors.append("line \(line): HOME=\(value) cannot be the working directory (an absolute path without control characters)")
            } else if let index = variables.firstIndex(where: { $0.name == name }) {
                variables[index] = (name, value, line)
            } else {
                variables.append((name, value, line))
            }
        }

        /// The environment cron gives the line's command: the variables above it, then `SHELL`,
        /// `HOME` and `PATH` where they set none, then `LOGNAME` (cron's `load_entry`).
        func environment(user: String, home: String?) -> [(name: String, value: String)] {
            var environment = variables.map { (name: $0.name, value: $0.value) }
            func setDefault(_ name: String, _ value: String?) {
                if let value, !environment.contains(where: { $0.name == name }) { environment.append((name, value)) }
            }
            setDefault("SHELL", CronTable.defaultShell)
            setDefault("HOME", home)
            setDefault("PATH", CronTable.defaultPath)
            if let index = environment.firstIndex(where: { $0.name == "LOGNAME" }) {
                environment[index].value = user
            } else {
                environment.append(("LOGNAME", user))
            }
            return environment
        }

        /// The job of the line: the importer's job file, with cron's whole environment and the
        /// command's standard error on its standard output (cron's one pipe), read as jobd reads
        /// any job file.
        private func definition(
            name: String, line: CrontabText.Line, schedule: String, user: String, home: String?, commandText: String
        ) -> Swift.Result<JobDefinition, ConfigError> {
            var options = CrontabImporter.Options(
                path: source.path, systemFormat: source.kind.systemFormat, user: owner, homeDirectory: { _ in home })
            options.zonesCronTZ = false
            var report = ImportReport()
            var job = CrontabImporter.convertJob(
                line: line.text, number: line.number, schedule: schedule, user: user, commandText: commandText, name: name,
                environment: variables, options: options, report: &report)
            let environment = environment(user: user, home: home)
            let command = CronCommand(cronText: commandText)
            let shell = environment.first { $0.name == "SHELL" }?.value ?? CronTable.defaultShell
            var script = CrontabImporter.script(for: command, shell: shell, line: line.number, report: &report)
            // One pipe for both, as cron's: the output (journal, mail) keeps the order the command wrote it in.
            if CronTable.isBourneShell(shell) { script = "exec 2>&1\n" + script }
            job.assignments.removeAll { $0.key == "Environment" || $0.key == "ExecStart" }
            for variable in environment where CrontabImporter.isVariableName(variable.name) {
                job.set("Environment", SystemdQuoting.environmentAssignment(name: variable.name, value: variable.value))
            }
            job.set("ExecStart", SystemdQuoting.shellCommand(shell, script: script))
            if let refusal = report.entries.first(where: { $0.kind == .refused }) {
                return .failure(ConfigError(file: source.path, line: line.number, message: refusal.message))
            }
            switch JobFileReader.read(name: name, path: source.path, text: job.text) {
            case .failure(let errors):
                let first = errors.errors.first
                return .failure(ConfigError(file: source.path, line: line.number,
                                            message: "the line cannot be a job: \(first?.message ?? "\(errors)")", hint: first?.hint))
            case .success(var definition):
                let variables = Dictionary(self.variables.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
                definition.cron = CronOrigin(
                    file: source.path, line: line.number, user: user, command: command.command,
                    environment: environment.map { "\($0.name)=\($0.value)" }, mailTo: variables["MAILTO"], mailFrom: variables["MAILFROM"])
                if let owner { (definition.owningUser, definition.owningUID) = (owner, ownerUID) }
                if failureResult == .ignore { definition.successExitStatus.statuses.formUnion(1...255) }
                return .success(definition)
            }
        }
    }

    /// Whether `shell` reads `exec 2>&1` as the Bourne shell does (csh and fish do not).
    static func isBourneShell(_ shell: String) -> Bool {
        !["csh", "tcsh", "fish"].contains(shell.split(separator: "/").last.map(String.init) ?? shell)
    }
}

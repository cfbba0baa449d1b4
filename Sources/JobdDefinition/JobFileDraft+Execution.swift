import JobdUnitFile

/// The readers of the keys that say what a run is: its command, environment, account, and what
/// follows its end.
extension JobFileDraft {
    mutating func readCommand(_ value: String, line: Int) {
        if value.isEmpty {
            commands.removeAll()
            return
        }
        do {
            commands.append((try ExecCommand.parse(value), line))
        } catch {
            commandValueFailed = true
            self.error(line, "ExecStart=: \(error.message)", hint: error.hint)
        }
    }

    mutating func readWorkingDirectory(_ value: String, line: Int) {
        if value.isEmpty {
            workingDirectory = nil
            return
        }
        // `~`, as systemd: the home directory of User= (of jobd's own user without one).
        if value == "~" || value == "-~" {
            workingDirectory = WorkingDirectory(path: WorkingDirectory.home, optional: value.hasPrefix("-"))
            return
        }
        guard let (directory, optional) = optionalPath(.workingDirectory, value, line: line, example: "/var/lib/backup or ~") else { return }
        workingDirectory = WorkingDirectory(path: directory, optional: optional)
    }

    mutating func readEnvironmentFile(_ value: String, line: Int) {
        if value.isEmpty {
            environmentFiles.removeAll()
            return
        }
        guard let (file, optional) = optionalPath(.environmentFile, value, line: line, example: "/etc/jobd/backup.env") else { return }
        environmentFiles.append(EnvironmentFile(path: file, optional: optional))
    }

    /// An absolute path that may start with `-` (a missing file is then not an error).
    private mutating func optionalPath(_ key: JobKey, _ value: String, line: Int, example: String) -> (String, optional: Bool)? {
        let optional = value.hasPrefix("-")
        let file = optional ? String(value.dropFirst()) : value
        guard file.hasPrefix("/") else {
            error(line, "\(key.rawValue)= must be an absolute path, found '\(value)'",
                  hint: "write the full path, such as \(example); prefix it with '-' if it may be missing")
            return nil
        }
        return (file, optional)
    }

    mutating func readEnvironment(_ value: String, line: Int) {
        if value.isEmpty {
            environment.removeAll()
            return
        }
        do {
            for word in try WordSplitter.split(value) {
                let assignmentText = word.map { if case .literal(let text) = $0 { text } else { "" } }.joined()
                guard let equals = assignmentText.firstIndex(of: "="),
                      WordSplitter.isVariableName(String(assignmentText[..<equals])) else {
                    error(line, "Environment=: '\(assignmentText)' is not an assignment NAME=value",
                          hint: "names are letters, digits and '_', not starting with a digit; quote values with spaces: \"NAME=a b\"")
                    continue
                }
                environment.append(EnvironmentVariable(
                    name: String(assignmentText[..<equals]),
                    value: String(assignmentText[assignmentText.index(after: equals)...])))
            }
        } catch {
            self.error(line, "Environment=: \(error.message)")
        }
    }

    mutating func readAccount(_ key: JobKey, _ value: String, line: Int) {
        let account = value.isEmpty ? nil : (name: value, line: line)
        if key == .user { user = account } else { group = account }
    }

    /// A list; more lines add to it, an empty one clears it, as systemd's.
    mutating func readSupplementaryGroups(_ value: String, line: Int) {
        if value.isEmpty { supplementaryGroups.removeAll() }
        supplementaryGroups += value.split(separator: " ").map { (String($0), line) }
    }

    mutating func readStandardInput(_ value: String, line: Int) {
        // A run's stdin is /dev/null, as a service's by default; nothing else is offered.
        guard value.isEmpty || value == "null" else {
            error(line, "StandardInput=: jobd gives every run /dev/null as its standard input, not '\(value)'",
                  hint: "write StandardInput=null, or feed the command yourself: ExecStart=/bin/sh -c 'command < FILE'")
            return
        }
    }

    mutating func readSyslogIdentifier(_ value: String, line: Int) {
        guard value.isEmpty || SyslogIdentifier.isValid(value) else {
            error(line, "SyslogIdentifier=: '\(value)' is not an identifier jobd takes", hint: SyslogIdentifier.hint(for: value))
            return
        }
        syslogIdentifier = value.isEmpty ? nil : value
    }

    mutating func readTasksMax(_ value: String, line: Int) {
        if value.isEmpty {
            tasksMax = nil
            return
        }
        guard let limit = TasksMax.parse(value) else {
            error(line, "TasksMax=: '\(value)' is not a task limit", hint: TasksMax.hint)
            return
        }
        tasksMax = (limit, line)
    }

    /// The keys ``ProcessAttributes`` reads: scheduling, the umask and the `Limit…=` keys.
    mutating func readProcessAttribute(_ key: JobKey, _ kind: ProcessAttributes.Value, _ value: String, line: Int) {
        if let wrong = attributes.read(key, as: kind, value: value) { error(line, wrong.message, hint: wrong.hint) }
        if case .limit(let resource) = kind { attributes.limitLines[resource] = attributes.limits[resource] == nil ? nil : line }
    }

    /// The keys ``Sandbox`` reads.
    mutating func readSandbox(_ key: JobKey, _ kind: Sandbox.Value, _ value: String, line: Int) {
        if let wrong = sandbox.read(key, as: kind, value: value) { error(line, wrong.message, hint: wrong.hint) }
        if (key == .privateDevices || key == .protectClock) && sandbox.needsDeviceCgroup { sandboxDeviceLine = sandboxDeviceLine ?? line }
    }

    mutating func readResource(_ key: ResourceControl.Key, _ value: String, line: Int) {
        if let wrong = resources.read(key: key, value: value, line: line) { error(line, wrong.message, hint: wrong.hint) }
    }

    /// systemd: an empty value resets every condition and assertion before it.
    mutating func readCondition(_ kind: UnitCondition.Kind, isAssertion: Bool, _ value: String, line: Int) {
        guard !value.isEmpty else {
            conditions = []
            return
        }
        switch UnitCondition.read(kind, isAssertion: isAssertion, value: value) {
        case .success(let condition): conditions.append(condition)
        case .failure(let wrong): error(line, wrong.message, hint: wrong.hint)
        }
    }
}

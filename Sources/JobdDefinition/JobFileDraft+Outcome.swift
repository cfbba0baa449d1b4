import JobdUnitFile

/// The readers of the keys that say how runs meet and end: overlap, retries, exit statuses, the
/// jobs that follow and mail.
extension JobFileDraft {
    mutating func readExitStatus(_ key: JobKey, _ value: String, line: Int) {
        let prevent = key == .restartPreventExitStatus
        guard !value.isEmpty else {
            if prevent { restart.preventExitStatus = SuccessExitStatus() } else { successExitStatus = SuccessExitStatus() }
            return
        }
        let wrong = prevent ? restart.preventExitStatus.add(value) : successExitStatus.add(value)
        if let wrong {
            error(line, "\(key.rawValue)=: '\(wrong)' is neither an exit status nor a signal",
                  hint: "write exit statuses from 0 to 255 or their names (systemd-analyze exit-status) and signal names such as "
                    + (prevent ? "SIGTERM" : "SIGHUP") + ", separated by spaces")
        }
    }

    /// The keys that take one of a set of words, each empty for its default: the word, or `nil`
    /// with the error recorded, which says the value `is not` `what` and gives `hint`.
    mutating func choice<Choice: RawRepresentable>(
        _ key: JobKey, _ value: String, line: Int, default: Choice, isNot what: String, hint: @autoclosure () -> String
    ) -> Choice? where Choice.RawValue == String {
        guard let choice = value.isEmpty ? `default` : Choice(rawValue: value) else {
            error(line, "\(key.rawValue)=: '\(value)' is not \(what)", hint: hint())
            return nil
        }
        return choice
    }

    mutating func readOverlap(_ value: String, line: Int) {
        overlap = choice(.overlap, value, line: line, default: .skip, isNot: "an overlap policy",
                         hint: "write one of " + OverlapPolicy.allCases.map(\.rawValue).joined(separator: ", ")) ?? overlap
    }

    mutating func readKillMode(_ value: String, line: Int) {
        killMode = choice(.killMode, value, line: line, default: .controlGroup, isNot: "a kill mode",
                          hint: "write control-group (the default: a run's leftovers are stopped) or process (they are left running)") ?? killMode
    }

    mutating func readRestart(_ value: String, line: Int) {
        let hint = value == "always" || value == "on-success" || value == "on-watchdog"
            ? "a job runs again by its triggers; Restart= only retries a failed run: write on-failure, on-abnormal, on-abort or no"
            : "write one of " + RestartPolicy.Condition.allCases.map(\.rawValue).joined(separator: ", ")
        restart.condition = choice(.restart, value, line: line, default: .no, isNot: "a restart condition", hint: hint) ?? restart.condition
    }

    mutating func readMailOn(_ value: String, line: Int) {
        mailOn = choice(.mailOn, value, line: line, default: .output, isNot: "when to mail",
                        hint: "write output (the default: whenever a run writes anything, as cron) or failure (only failed runs)") ?? mailOn
    }

    mutating func readRunOn(_ value: String, line: Int) {
        guard let policy = choice(.runOn, value, line: line, default: RunOn.everyNode, isNot: "a place to run",
                                  hint: "write every-node (each node runs it) or one-node (one node of the fleet per elapse)") else { return }
        runOn = (policy, line)
    }

    /// `RestartSteps=`, `RestartLimit=`.
    mutating func readRestartCount(_ key: JobKey, _ value: String, line: Int) {
        let defaultValue = key == .restartSteps ? 0 : RestartPolicy.defaultLimit
        guard let number = value.isEmpty ? defaultValue : UInt64(value), number <= 10_000 else {
            error(line, "\(key.rawValue)=: '\(value)' is not a number from 0 to 10000",
                  hint: key == .restartLimit ? "write how many times a failed run is retried, such as 3" : "write a number of steps, such as 5")
            return
        }
        if key == .restartSteps { restart.steps = number } else { restart.limit = number }
    }

    /// `OnFailure=`, `OnSuccess=`: a list of job names; an empty value clears it.
    mutating func readFollowers(_ key: JobKey, _ value: String, line: Int) {
        var names = key == .onFailure ? onFailure : onSuccess
        if value.isEmpty { names.removeAll() }
        for word in value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) {
            let job = word.hasSuffix(".job") ? String(word.dropLast(4)) : word
            guard JobFileReader.isValidJobName(job) else {
                error(line, "\(key.rawValue)=: '\(word)' is not a job name",
                      hint: "name jobs by their file name without .job, such as notify-failure")
                continue
            }
            if !names.contains(job) { names.append(job) }
            referenceLines.lines[JobReference(key: key, job: job)] = line
        }
        if key == .onFailure { onFailure = names } else { onSuccess = names }
    }

    mutating func readMailTo(_ value: String, line: Int) {
        if value.isEmpty { mailTo.removeAll() }
        for word in value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init) {
            guard MailPolicy.isSafeRecipient(word) else {
                error(line, "MailTo=: '\(word)' is not an address jobd hands to sendmail",
                      hint: "a letter or digit first, then letters, digits and @!:%-._+=/ as cron's MAILTO= takes them; "
                        + "separate several with spaces or commas")
                continue
            }
            if !mailTo.contains(word) { mailTo.append(word) }
        }
    }
}

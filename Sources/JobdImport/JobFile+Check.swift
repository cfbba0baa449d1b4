import JobdCalendar
package import JobdConfig

extension JobFile {
    /// Reads the file's text back with jobd's own reader, as `jobctl check` and jobd would, and
    /// says what differs from what was meant: a syntax error, an assignment that reads back other
    /// than it was written (a line split in two, a value continued into the next line), a key
    /// assigned twice that takes one value, an error of jobd's reader, or a job other than
    /// ``expected``. Empty when the file may be written. The account lookup is jobd's own, so the
    /// accounts must exist here.
    package func problems(path: String) -> [String] {
        let text = self.text
        var problems: [String] = []
        let (file, syntaxErrors) = UnitFile.parse(text, path: path)
        problems += syntaxErrors.map(\.description)
        if file.sections.map(\.name) != ["Job"] {
            problems.append("the file reads as the sections \(file.sections.map { "[\($0.name)]" }.joined(separator: " ")), not [Job] alone")
        }
        let read = file.assignments.map { (key: $0.key, value: $0.value) }
        for index in 0..<max(read.count, assignments.count) {
            let written = index < assignments.count ? "\(assignments[index].key)=\(assignments[index].value)" : "nothing"
            let readBack = index < read.count ? "\(read[index].key)=\(read[index].value)" : "nothing"
            if written != readBack {
                problems.append("assignment \(index + 1) reads back as '\(readBack)', not as the '\(written)' written")
            }
        }
        var counts: [String: Int] = [:]
        for assignment in read { counts[assignment.key, default: 0] += 1 }
        for (key, count) in counts.sorted(by: { $0.key < $1.key }) where count > 1 && !Self.repeatableKeys.contains(key) {
            problems.append("\(key)= is assigned \(count) times")
        }
        switch JobFileReader.read(name: name, path: path, text: text) {
        case .failure(let errors):
            problems += errors.errors.map(\.description)
        case .success(let definition):
            if let expected { problems += Self.differences(definition, expected) }
        }
        return problems
    }

    /// The command's words as jobd reads them, a part jobd would expand written as `<expanded by
    /// jobd: …>`: an imported command has none.
    package static func literalWords(of command: ExecCommand) -> [String] {
        command.words.map { parts in
            parts.map { part -> String in
                if case .literal(let text) = part { return text }
                return "<expanded by jobd: \(part)>"
            }.joined()
        }
    }

    private static func differences(_ definition: JobDefinition, _ expected: ExpectedJob) -> [String] {
        var differences: [String] = []
        func compare<Value: Equatable>(_ what: String, _ read: Value, _ meant: Value) {
            if read != meant { differences.append("\(what) reads as \(read), not as the \(meant) meant") }
        }
        let meant: [Trigger]? = (try? CronSpec.parse(expected.schedule)).map { [.cron($0)] }
        compare("the schedule", definition.triggers, meant ?? [])
        compare("User=", definition.user, expected.user)
        compare("WorkingDirectory=", definition.workingDirectory.map { ($0.optional ? "-" : "") + $0.path },
                expected.workingDirectory.map { ($0.optional ? "-" : "") + $0.path })
        compare("the environment", definition.environment.map { "\($0.name)=\($0.value)" }, expected.environment.map { "\($0.name)=\($0.value)" })
        compare("the command", literalWords(of: definition.command), expected.argv)
        compare("the failure prefix '-'", definition.command.ignoresFailure, false)
        compare("Description=", definition.description, expected.description)
        return differences
    }
}

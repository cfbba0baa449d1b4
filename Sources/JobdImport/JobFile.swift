import JobdConfig
/// A job file being written: comments first, then `[Job]` and its assignments in order.
///
/// Values go in as jobd's reader must give them back: a value jobd reads as written (`User=`,
/// `WorkingDirectory=`, `Description=`) must pass ``plainValueProblem(_:)``, the others are quoted
/// by ``SystemdQuoting``; ``problems(path:)`` reads the text back before it is written.
package struct JobFile: Sendable {
    /// The job's name; the file is `NAME.job`.
    package var name: String
    /// Comment lines, without their `# `.
    package var comments: [String] = []
    package var assignments: [(key: String, value: String)] = []
    /// What jobd must read from the file, where the importer knows it exactly.
    package var expected: ExpectedJob?

    package init(name: String) {
        self.name = name
    }

    /// Adds `text` as comment lines: one per line of it, with control characters other than the
    /// tab written as `\xNN`, so that a comment is never more than a comment.
    package mutating func comment(_ text: String) {
        for line in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            var escaped = ""
            for scalar in line {
                if CrontabText.isRefusedControl(scalar) {
                    escaped += CrontabText.escaped(scalar)
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
            comments.append(escaped)
        }
    }

    /// Adds `KEY=value` as it is: the caller quotes the value (``SystemdQuoting``) or checks it
    /// (``plainValueProblem(_:)``).
    package mutating func set(_ key: String, _ value: String) {
        assignments.append((key, value))
    }

    /// The keys a job file may assign more than once, each adding to a list.
    static let repeatableKeys: Set<String> = Set(["Environment", "EnvironmentFile", "OnFailure", "OnSuccess", "SupplementaryGroups",
                                              "SystemCallFilter", "RestrictNamespaces", "ReadWritePaths", "ReadOnlyPaths",
                                              "InaccessiblePaths", "CapabilityBoundingSet", "AmbientCapabilities"])
        // Every Condition…= and Assert…= is a list: each line adds one.
        .union(Set(UnitCondition.Kind.allCases.flatMap { ["Condition" + $0.rawValue, "Assert" + $0.rawValue] }))

    /// Why `value` cannot be written as it is after a key jobd reads without quotes or escapes
    /// (`User=`, `WorkingDirectory=`, `Description=`), or `nil` if it can: jobd trims blanks at
    /// either end of a value, a backslash at the end continues the line, and a control character
    /// has no way to be written there.
    package static func plainValueProblem(_ value: String) -> String? {
        if let control = value.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            return "it holds the control character \(CrontabText.escaped(control))"
        }
        if let first = value.unicodeScalars.first, CrontabLine.isBlank(first) { return "it starts with a blank" }
        if let last = value.unicodeScalars.last, CrontabLine.isBlank(last) { return "it ends with a blank" }
        if value.hasSuffix("\\") { return "it ends with a backslash, which would join the next line of the job file to it" }
        return nil
    }

    /// The file's contents.
    package var text: String {
        var text = comments.map { $0.isEmpty ? "#\n" : "# \($0)\n" }.joined()
        text += "[Job]\n"
        for assignment in assignments { text += "\(assignment.key)=\(assignment.value)\n" }
        return text
    }
}

/// What an imported job file means: the command, account, environment and schedule jobd must
/// read from it, compared by ``JobFile/problems(path:)`` with what jobd's reader makes of it.
package struct ExpectedJob: Sendable {
    /// `Cron=`.
    package var schedule: String
    package var user: String?
    /// `optional`: the `-` prefix, a missing directory is no error.
    package var workingDirectory: (path: String, optional: Bool)?
    /// In order, as `Environment=` lines set them.
    package var environment: [(name: String, value: String)]
    /// The command's words, none of them expanded by jobd.
    package var argv: [String]
    package var description: String?

    package init(
        schedule: String, user: String?, workingDirectory: (path: String, optional: Bool)?, environment: [(name: String, value: String)],
        argv: [String], description: String?
    ) {
        self.schedule = schedule
        self.user = user
        self.workingDirectory = workingDirectory
        self.environment = environment
        self.argv = argv
        self.description = description
    }
}

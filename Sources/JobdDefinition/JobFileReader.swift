import JobdCalendar
package import JobdUnitFile

/// Reads one job file's `[Job]` section into a ``JobDefinition``, collecting every error with the
/// line it is on. Sections and keys starting with `X-` are ignored, as systemd ignores them.
package enum JobFileReader {
    /// Reads the job `name` from the contents `text` of the file at `path`; with `interner`, a
    /// trigger another file of the same read wrote alike is shared with it rather than made again.
    package static func read(name: String, path: String, text: String) -> Result<JobDefinition, ConfigErrors> {
        read(name: name, path: path, text: text, interner: nil)
    }

    package static func read(name: String, path: String, text: String, interner: TriggerInterner?) -> Result<JobDefinition, ConfigErrors> {
        let (file, syntaxErrors) = UnitFile.parse(text, path: path)
        var draft = JobFileDraft(path: path, interner: interner)
        draft.errors = syntaxErrors
        if !isValidJobName(name) {
            draft.error(nil, "'\(name)' is not a valid job name",
                        hint: "name job files with letters, digits and '_.@-' only, ending in .job")
        }
        for section in file.sections where section.name != JobFileKey.section && !section.name.hasPrefix("X-") {
            draft.error(section.line, "unknown section [\(section.name)]", hint: sectionHint(section.name))
        }
        for assignment in file.assignments where assignment.section == JobFileKey.section && !assignment.key.hasPrefix("X-") {
            guard let key = JobFileKey(name: assignment.key) else {
                let hint: String = ForeignSyntax.hint(forKey: assignment.key, value: assignment.value)
                    ?? JobKey.suggestion(for: assignment.key).map { "did you mean '\($0)='?" }
                    ?? "jobd.job(5) lists every key a job file takes"
                draft.error(assignment.line, "unknown key '\(assignment.key)=' in [Job]", hint: hint)
                continue
            }
            key.read(assignment.value, line: assignment.line, into: &draft)
        }
        return draft.definition(name: name, section: file.sections.first { $0.name == JobFileKey.section })
    }

    private static func sectionHint(_ name: String) -> String {
        name.lowercased() == JobKey.section.lowercased() || KeySpelling.editDistance(name, JobKey.section) <= 1
            ? "did you mean [Job]?"
            : ForeignSyntax.sectionHint(name) ?? "a job file has one section, [Job]; sections starting with X- are ignored"
    }

    /// systemd's booleans: 1/yes/y/true/t/on and 0/no/n/false/f/off.
    package static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "yes", "y", "true", "t", "on": true
        case "0", "no", "n", "false", "f", "off": false
        default: nil
        }
    }

    /// Job names become journal field values and command arguments: keep them plain (ASCII
    /// letters, digits and `_.@:-`, so that bytes are characters).
    package static func isValidJobName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 200 && name.utf8.allSatisfy {
            $0.isASCIILetter || $0.isASCIIDigit || $0 == .underscore || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "@")
                || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "-")
        }
    }
}

extension Trigger {
    var key: JobKey {
        switch self {
        case .startup: .onStartupSec
        case .unitActive: .onUnitActiveSec
        case .unitInactive: .onUnitInactiveSec
        case .calendar: .onCalendar
        case .cron: .cron
        }
    }
}

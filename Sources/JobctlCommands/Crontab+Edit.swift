import Glibc
import JobdControl
import JobdImport

extension Crontab.Session {
    /// `crontab -e`: a copy of the crontab (without its header) in `$TMPDIR/crontab.XXXXXX/crontab`,
    /// in the caller's editor, run as the caller; when it changed, jobd checks and installs it. A
    /// copy with errors is not installed: they are printed with the copy's line and, as Debian's
    /// crontab does, "Do you want to retry the same edit?" reopens it; a no leaves it where it is.
    func edit() throws(Crontab.Failure) {
        let original: String
        if let text = try current() {
            original = CrontabHeader.strip(text)
        } else {
            Self.say("no crontab for \(user) - using an empty one")
            original = Self.template
        }
        let base = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/crontab.XXXXXX").utf8CString)
        guard let directory = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }) else {
            throw Crontab.Failure("\(base)/crontab.XXXXXX: \(String(cString: strerror(errno)))\nCreation of temporary crontab file failed - aborting")
        }
        let copy = directory + "/crontab"
        var keep = false
        defer {
            if !keep {
                unlink(copy)
                rmdir(directory)
            }
        }
        guard Jobctl.Edit.write(original, to: copy) else { throw Crontab.Failure("\(copy): \(String(cString: strerror(errno)))") }
        while true {
            let editor = Self.editor(environment)
            let status = Jobctl.Edit.runEditor(on: copy, editor: editor)
            guard status == 0 else { throw Crontab.Failure("crontab: \"\(editor)\" exited with status \(status)") }
            guard let edited = Jobctl.Edit.read(copy) else { throw Crontab.Failure("Error while editing crontab") }
            if edited == original {
                Self.say("No modification made")
                return
            }
            Self.say("crontab: installing new crontab")
            do {
                let saved = try ask(.crontabInstall, text: edited, path: copy)
                if let warnings = saved.message { Self.say(warnings) }
                return
            } catch {
                Self.say(error.message)
                if error.code == .invalidJob, Self.confirm("Do you want to retry the same edit? (y/n) ", again: "Enter Y or N\n") { continue }
                keep = true
                throw Crontab.Failure("crontab: edits left in \(copy)")
            }
        }
    }

    /// The editor, as Debian's crontab picks it: `$VISUAL`, else `$EDITOR`, else
    /// `/usr/bin/sensible-editor` (else `editor`, else `vi`, where there is none).
    static func editor(_ environment: [String: String]) -> String {
        if let visual = environment["VISUAL"], !visual.isEmpty { return visual }
        if let editor = environment["EDITOR"], !editor.isEmpty { return editor }
        for fallback in ["/usr/bin/sensible-editor", "/usr/bin/editor"] where access(fallback, X_OK) == 0 { return fallback }
        return "vi"
    }

    /// A new crontab's first text: comments only, so that saving it unchanged installs nothing.
    static let template = """
        # Your crontab: one line per command, run as you by jobd (cron's format, crontab(5)):
        #
        # minute hour day-of-month month day-of-week command
        # 0 5 * * 1 tar -zcf "$HOME/backup.tgz" "$HOME/work"
        #
        # Output goes to the journal (jobctl --user logs) and, as cron's, by mail to you.

        """
}

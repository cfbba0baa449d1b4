import JobdConfig

/// A service's `ExecStartPre=`, `ExecStart=` and `ExecStartPost=` lines as one `ExecStart=` for
/// jobd, which runs one command per job.
///
/// One command line without prefixes other than `-` is carried over as it is. Several are joined
/// into `/bin/sh -c '…'` the way systemd runs them for a `Type=oneshot` service: in order, stopping
/// at the first that fails unless its line has the `-` prefix, with the failing command's exit
/// status; `${NAME}` and `$NAME` become the shell's own expansions of the same environment.
struct ServiceCommand {
    struct Line {
        var key: String
        var value: String
        var line: Int
    }

    /// The `ExecStart=` value for the job, or `nil` (with the reasons in `report`).
    static func execStart(_ lines: [Line], report: inout ImportReport) -> String? {
        guard lines.contains(where: { $0.key == "ExecStart" }) else {
            report.add(.notCarriedOver, line: nil, "the service has no ExecStart=")
            return nil
        }
        if lines.count == 1, let only = lines.first, (try? ExecCommand.parse(only.value)) != nil {
            return only.value
        }
        var commands: [(text: String, ignoresFailure: Bool)] = []
        for line in lines {
            var body = Substring(line.value)
            var ignoresFailure = false
            while let prefix = body.first, "-@:+!".contains(prefix) {
                switch prefix {
                case "-": ignoresFailure = true
                case "+", "!":
                    report.add(.notCarriedOver, line: line.line,
                               "\(line.key)=: the '\(prefix)' prefix (full privileges): the command runs as the job's User=")
                default:
                    report.add(.notCarriedOver, line: line.line, "\(line.key)=: the '\(prefix)' prefix is dropped")
                }
                body = body.dropFirst()
            }
            let command: ExecCommand
            do {
                command = try ExecCommand.parse(String(body))
            } catch {
                report.add(.notCarriedOver, line: line.line, "\(line.key)=\(line.value): \(error.message)")
                return nil
            }
            commands.append((shellLine(command), ignoresFailure))
        }
        let script = commands.enumerated().map { index, command in
            let last = index == commands.count - 1
            switch (command.ignoresFailure, last) {
            case (true, true): return command.text + " || :"
            case (true, false), (false, true): return command.text
            case (false, false): return command.text + " || exit"
            }
        }.joined(separator: "; ")
        report.add(.note, line: lines.first?.line,
                   "\(lines.count) command lines joined into one shell command that stops at the first failure, as systemd runs them")
        return SystemdQuoting.shellCommand("/bin/sh", script: script)
    }

    /// The command as a shell command line with the same words.
    private static func shellLine(_ command: ExecCommand) -> String {
        command.words.map { word in
            if word.count == 1, case .splitVariable(let name) = word[0] { return "${\(name)}" }
            let pieces = word.map { part -> String in
                switch part {
                case .literal(let text): ShellQuoting.word(text)
                case .variable(let name), .splitVariable(let name): "\"${\(name)}\""
                }
            }
            return pieces.isEmpty ? "''" : pieces.joined()
        }.joined(separator: " ")
    }
}

import Foundation

/// jobctl's generated bash completion, sourced in a real bash and run as bash runs it on <TAB>
/// (COMP_WORDS, COMP_CWORD, the completion function), optionally as another user (dropped by
/// setpriv, as ``Jobctl`` does).
package enum BashCompletion {
    /// What bash offers for `jobctl WORDS...` with the cursor at the end of the last word, and
    /// bash's exit status and standard error.
    package static func complete(
        _ words: [String], environment: [String: String], as user: (uid: UInt32, gid: UInt32)? = nil
    ) throws -> (offered: [String], status: Int32, standardError: String) {
        let jobctl = DaemonProcess.productsDirectory + "/jobctl"
        let script = try CapturedProcess.run(jobctl, ["--generate-completion-script", "bash"])
        let directory = NSTemporaryDirectory() + "jobctl-completion-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o755)
        try script.standardOutput.write(toFile: directory + "/jobctl.bash", atomically: true, encoding: .utf8)
        chmod(directory + "/jobctl.bash", 0o644)
        let quoted = ([jobctl] + words).map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source \(directory)/jobctl.bash
            complete -p jobctl | grep -q -- '-F _jobctl' || { echo 'no completion registered' >&2; exit 3; }
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count)
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            _jobctl jobctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let bash = ["/bin/bash", "--norc", "--noprofile", "-c", program]
        let result = if let user {
            try CapturedProcess.run("/usr/bin/setpriv", ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups"] + bash, environment: env)
        } else {
            try CapturedProcess.run(bash[0], Array(bash.dropFirst()), environment: env)
        }
        return (result.standardOutput.split(separator: "\n").map(String.init), result.status, result.standardError)
    }
}

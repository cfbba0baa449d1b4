import FoundationEssentials
import JobdConfig
import JobdControl

/// Job names for shell completion (`jobctl status <TAB>`): the jobs of the running daemon, else the
/// job files of the configuration directory. The shell runs `jobctl` itself to ask for them, so
/// this must be quick and must never print anything else.
package enum JobNameCompletion {
    /// Where completion looks for job files when no daemon answers, if not in `/etc/jobd`.
    package static let configDirectoryVariable = "JOBCTL_CONFIG_DIR"

    /// The names starting with `prefix`; `words` is the command line, where `--runtime-dir` is
    /// honoured. The configuration directory is `$JOBCTL_CONFIG_DIR`, else `/etc/jobd`.
    package static func complete(words: [String], prefix: String, environment: [String: String]) -> [String] {
        let runtime = value(of: "--runtime-dir", in: words)
            ?? ControlProtocol.defaultRuntimeDirectory(environment: environment)
        let names: [String]
        if words.dropFirst().first == "--user" {
            // The caller's own jobs, named as --user takes them: without `USER:`.
            let own = UserScope.userName + ":"
            names = (daemonJobs(runtimeDirectory: runtime) ?? []).filter { $0.hasPrefix(own) }.map { String($0.dropFirst(own.count)) }
        } else {
            names = daemonJobs(runtimeDirectory: runtime)
                ?? configuredJobs(configDirectory: environment[configDirectoryVariable] ?? "/etc/jobd")
        }
        return names.filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// The value after `option` (`--option VALUE` or `--option=VALUE`) in `words`.
    static func value(of option: String, in words: [String]) -> String? {
        for (index, word) in words.enumerated() {
            if word.hasPrefix(option + "=") { return String(word.dropFirst(option.count + 1)) }
            if word == option, index + 1 < words.count { return words[index + 1] }
        }
        return nil
    }

    /// The daemon's jobs, or `nil` when no daemon answers (or it refuses the caller).
    static func daemonJobs(runtimeDirectory: String) -> [String]? {
        guard let client = try? ControlClient(runtimeDirectory: runtimeDirectory),
              let response = try? client.exchange(ControlRequest(command: .list)), response.type == .list
        else { return nil }
        return response.jobs?.map(\.name)
    }

    /// The names of `DIR/jobs.d/*.job`, without reading them: a broken file still completes.
    package static func configuredJobs(configDirectory: String) -> [String] {
        let jobs = JobDirectory(path: configDirectory).jobsPath
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: jobs)) ?? []
        return entries.filter { $0.hasSuffix(".job") && !$0.hasPrefix(".") }.map { String($0.dropLast(4)) }
    }
}

extension Jobctl {
    /// For `@Argument(completion: .custom(Jobctl.completeJobNames))`.
    @Sendable static func completeJobNames(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        JobNameCompletion.complete(words: words, prefix: prefix, environment: ProcessInfo.processInfo.environment)
    }
}

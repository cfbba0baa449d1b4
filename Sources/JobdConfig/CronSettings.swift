import JobdUnitFile
import JobdDefinition

/// The `[Cron]` section of `jobd.conf`: jobd as the machine's cron, reading `/etc/crontab`,
/// `/etc/cron.d` and the crontabs of `/var/spool/cron/crontabs` itself (issue 38). Off by default:
/// the `jobd-cron` package turns it on with a drop-in.
package struct CronSettings: Sendable, Hashable {
    /// What a cron line's exit status means to jobd.
    package enum FailureResult: String, Sendable, Hashable, CaseIterable {
        /// As any job: a status other than 0 is a failure (`OnFailure=`, `jobctl list --failed`, metrics).
        case judge
        /// As cron: every exit status is a success; a signal, a timeout or a failure to start still fails.
        case ignore
    }

    /// `Enable=`: whether jobd reads cron's files; `nil` when jobd.conf does not say, and then
    /// `$JOBD_CRON_MODE` decides (``isEnabled(environment:)``).
    package var enabled: Bool?
    /// `FailureResult=`: ``FailureResult``; `judge` by default.
    package var failureResult = FailureResult.judge

    /// What the `jobd-cron` package sets for jobd.service (a drop-in of `Environment=`): `yes`
    /// makes cron mode the default, which `Enable=` in jobd.conf still overrides.
    package static let environmentVariable = "JOBD_CRON_MODE"

    /// Whether cron mode is on: `Enable=`, else `$JOBD_CRON_MODE`, else off.
    package func isEnabled(environment: [String: String]) -> Bool {
        enabled ?? environment[Self.environmentVariable].flatMap(JobFileReader.boolean) ?? false
    }

    package init(enabled: Bool? = nil, failureResult: FailureResult = .judge) {
        self.enabled = enabled
        self.failureResult = failureResult
    }

    static let section = "Cron"
    static let keys = ["Enable", "FailureResult"]

    /// Reads the `[Cron]` assignments of `file`; the defaults when the section is absent.
    static func read(_ file: UnitFile, path: String, errors: inout [ConfigError]) -> CronSettings {
        var settings = CronSettings()
        for assignment in file.assignments where assignment.section == Self.section && !assignment.key.hasPrefix("X-") {
            let (value, line) = (assignment.value, assignment.line)
            switch assignment.key {
            case "Enable":
                if value.isEmpty {
                    settings.enabled = nil
                } else if let enabled = JobFileReader.boolean(value) {
                    settings.enabled = enabled
                } else {
                    errors.append(ConfigError(file: path, line: line, message: "Enable=: '\(value)' is not a boolean", hint: "write yes or no"))
                }
            case "FailureResult":
                if value.isEmpty {
                    settings.failureResult = .judge
                } else if let result = FailureResult(rawValue: value) {
                    settings.failureResult = result
                } else {
                    errors.append(ConfigError(file: path, line: line, message: "FailureResult=: '\(value)' is neither judge nor ignore",
                                              hint: "write judge (a status other than 0 fails, the default) or ignore (as cron)"))
                }
            default:
                let hint = KeySpelling.nearest(to: assignment.key, among: keys).map { "did you mean '\($0)='?" }
                    ?? "known keys: " + keys.map { $0 + "=" }.joined(separator: ", ")
                errors.append(ConfigError(file: path, line: line, message: "unknown key '\(assignment.key)=' in [Cron]", hint: hint))
            }
        }
        return settings
    }
}

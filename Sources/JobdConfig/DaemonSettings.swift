package import JobdUnitFile

/// jobd's own settings: the `[Daemon]` section of `CONFIG_DIR/jobd.conf`, in the same unit-file
/// syntax as job files. The file is optional; every key has a default.
package struct DaemonSettings: Sendable, Equatable {
    /// `MaxConcurrentRuns=`: at most this many runs at once; runs beyond it wait, in the order
    /// their jobs fell due. `nil` (the default, `infinity`) is no limit.
    package var maxConcurrentRuns: Int?
    /// `LeakGraceSec=`: how long a retired owner may stay alive before it is reported as a leak.
    package var leakGrace = TimeSpan.seconds(5)
    /// `MetricsFile=`: where jobd writes its metrics in the Prometheus text format (for
    /// node_exporter's textfile collector); `nil` (the default) writes none.
    package var metricsFile: String?
    /// `Sendmail=`: the program a run's mail (`MailTo=`) is handed to, called as cron calls
    /// sendmail; Debian's MTAs all install `/usr/sbin/sendmail`.
    package var sendmail = DaemonSettings.defaultSendmail
    package static let defaultSendmail = "/usr/sbin/sendmail"
    /// `DefaultTasksMax=`: the task limit of each run of a job without `TasksMax=`; systemd's
    /// default for a service, 15% of the system's maximum.
    package var defaultTasksMax = TasksMax.systemdDefault
    /// `RunsTasksMax=`: how many tasks all runs together may hold (the `pids.max` of the cgroup
    /// `runs` above theirs). `nil` (the default): jobd's own limit less ``tasksReserve``, so that
    /// no run, however many tasks it starts, leaves jobd without room for its own threads.
    package var runsTasksMax: TasksMax?
    /// The tasks kept for jobd itself when ``runsTasksMax`` is derived from jobd's own limit: its
    /// threads (the loop, logging, control connections, a run's start) need well under a hundred.
    package static let tasksReserve: UInt64 = 256

    /// `UserJobsMax=`: how many jobs of their own (`jobctl --user edit`) each user may have; jobs
    /// beyond it, in name order, do not run. `0` allows users none.
    package var userJobsMax = DaemonSettings.defaultUserJobsMax
    package static let defaultUserJobsMax = 32
    /// `UserRunsMax=`: how many runs of one user's own jobs may be in flight at once; more wait
    /// for one of that user's to end (`run.wait`, `JOBD_REASON=user-runs-max`), holding up no
    /// one else's. `nil` (`infinity`) is no limit.
    package var userRunsMax: Int? = DaemonSettings.defaultUserRunsMax
    package static let defaultUserRunsMax = 4
    /// `JobWaitingRunsMax=`: how many runs of one job may wait for a slot (under
    /// `MaxConcurrentRuns=` or `UserRunsMax=`); more are skipped (`run.skip`,
    /// `JOBD_REASON=job-waiting-runs-max`). `nil` (`infinity`) is no limit.
    package var jobWaitingRunsMax: Int? = DaemonSettings.defaultJobWaitingRunsMax
    package static let defaultJobWaitingRunsMax = 32
    /// `UserWaitingRunsMax=`: how many runs of one user's own jobs together may wait for a slot;
    /// more are skipped (`JOBD_REASON=user-waiting-runs-max`), so that no user's requests grow
    /// jobd's queue without bound. `nil` (`infinity`) is no limit.
    package var userWaitingRunsMax: Int? = DaemonSettings.defaultUserWaitingRunsMax
    package static let defaultUserWaitingRunsMax = 100
    /// `UserConnectionsMax=`: how many control connections one user other than root and jobd's own
    /// (one uid) may hold at once, of the 8 all such users share, so that no user alone can keep
    /// another out; root's slots are never theirs.
    package var userConnectionsMax = DaemonSettings.defaultUserConnectionsMax
    /// `CatchUpBurst=`: how many calendar jobs that fell due together (the catch-ups of jobd's
    /// start or of a resume) start in the same second; the others follow, this many a second.
    /// `nil` (`infinity`) starts them all at once, as systemd 252 does.
    package var catchUpBurst: Int? = DaemonSettings.defaultCatchUpBurst
    package static let defaultCatchUpBurst = 8
    package static let defaultUserConnectionsMax = 4
    /// `StopTimeoutMaxSec=`: at jobd's own stop, how long any run gets between SIGTERM and SIGKILL
    /// at most, whatever its `TimeoutStopSec=`, so that jobd's stop (and its exit audit) ends well
    /// within jobd.service's `TimeoutStopSec=30s`.
    package var stopTimeoutMax = DaemonSettings.defaultStopTimeoutMax
    package static let defaultStopTimeoutMax = TimeSpan.seconds(20)
    /// `UserLogRateLimitBurst=` lines of one user's own jobs' output go to the journal in each
    /// `UserLogRateLimitIntervalSec=`; more are dropped and counted, so that no user's output
    /// spends the journald rate limit root's entries need. `nil` (`infinity`) is no limit.
    package var userLogRateLimitBurst: Int? = DaemonSettings.defaultUserLogRateLimitBurst
    package static let defaultUserLogRateLimitBurst = 1_000
    package var userLogRateLimitInterval = DaemonSettings.defaultUserLogRateLimitInterval
    package static let defaultUserLogRateLimitInterval = TimeSpan.seconds(30)

    /// The `[Fleet]` section: `nil` (no section) is a single machine.
    package var fleet: FleetSettings?
    /// The `[Cron]` section: whether jobd reads cron's files, and how their lines' statuses count.
    package var cron = CronSettings()

    package init(maxConcurrentRuns: Int? = nil, leakGrace: TimeSpan = .seconds(5), fleet: FleetSettings? = nil) {
        self.maxConcurrentRuns = maxConcurrentRuns
        self.leakGrace = leakGrace
        self.fleet = fleet
    }

    static let section = "Daemon"
    static let keys = ["MaxConcurrentRuns", "LeakGraceSec", "MetricsFile", "Sendmail", "DefaultTasksMax", "RunsTasksMax", "UserJobsMax", "UserRunsMax",
                       "JobWaitingRunsMax", "UserWaitingRunsMax", "UserConnectionsMax", "StopTimeoutMaxSec",
                       "UserLogRateLimitBurst", "UserLogRateLimitIntervalSec", "CatchUpBurst"]

    /// Reads the contents `text` of `jobd.conf` at `path`, reporting every error with its line;
    /// `databaseCheck` checks `[Fleet]`'s `Database=`.
    /// An error for each section of `file` that jobd.conf does not have.
    private static func unknownSections(of file: UnitFile, path: String) -> [ConfigError] {
        file.sections.filter { ![Self.section, FleetSettings.section, CronSettings.section].contains($0.name) && !$0.name.hasPrefix("X-") }.map {
            ConfigError(file: path, line: $0.line, message: "unknown section [\($0.name)]", hint: "jobd.conf has the sections [Daemon], [Fleet] and [Cron]")
        }
    }

    package static func read(
        path: String, text: String, databaseCheck: FleetSettings.DatabaseCheck? = nil
    ) -> Result<DaemonSettings, ConfigErrors> {
        let (file, syntaxErrors) = UnitFile.parse(text, path: path)
        var errors = syntaxErrors + unknownSections(of: file, path: path)
        var settings = DaemonSettings()
        settings.fleet = FleetSettings.read(file, path: path, check: databaseCheck, errors: &errors)
        settings.cron = CronSettings.read(file, path: path, errors: &errors)
        /// `value` as an absolute file path; `nil` when it is empty (the default) or no such path
        /// (an error, with `example` as the hint).
        func filePath(_ key: String, _ value: String, _ line: Int, example: String) -> String? {
            if value.isEmpty { return nil }
            if value.hasPrefix("/"), !value.hasSuffix("/") { return value }
            errors.append(ConfigError(file: path, line: line, message: "\(key)=: '\(value)' is not an absolute file path",
                                      hint: "write a path such as \(example)"))
            return nil
        }
        func tasksLimit(_ key: String, _ value: String, _ line: Int) -> TasksMax? {
            guard let limit = TasksMax.parse(value) else {
                errors.append(ConfigError(file: path, line: line, message: "\(key)=: '\(value)' is not a task limit", hint: TasksMax.hint))
                return nil
            }
            return limit
        }
        /// `value` as a positive number of runs, `nil` for `infinity`, `fallback` when empty (the default).
        func runsLimit(_ key: String, _ value: String, _ line: Int, fallback: Int?) -> Int? {
            if value.isEmpty { return fallback }
            if value == "infinity" { return nil }
            if let limit = Int(value), limit > 0 { return limit }
            errors.append(ConfigError(file: path, line: line, message: "\(key)=: '\(value)' is not a positive number",
                                      hint: "write a number of runs such as \(fallback.map(String.init) ?? "4") (the default), or infinity"))
            return fallback
        }
        for assignment in file.assignments where assignment.section == Self.section && !assignment.key.hasPrefix("X-") {
            let value = assignment.value
            switch assignment.key {
            case "MaxConcurrentRuns":
                if value.isEmpty || value == "infinity" {
                    settings.maxConcurrentRuns = nil
                } else if let limit = Int(value), limit > 0 {
                    settings.maxConcurrentRuns = limit
                } else {
                    errors.append(ConfigError(
                        file: path, line: assignment.line,
                        message: "MaxConcurrentRuns=: '\(value)' is not a positive number",
                        hint: "write a number of runs such as 4, or infinity for no limit"))
                }
            case "LeakGraceSec":
                do {
                    settings.leakGrace = value.isEmpty ? .seconds(5) : try TimeSpan.parse(value)
                } catch {
                    errors.append(ConfigError(file: path, line: assignment.line, message: "LeakGraceSec=: \(error)",
                                              hint: "write a time span such as 5s or 1min"))
                }
            case "MetricsFile":
                settings.metricsFile = filePath("MetricsFile", value, assignment.line, example: "/var/lib/prometheus/node-exporter/jobd.prom")
            case "Sendmail":
                settings.sendmail = filePath("Sendmail", value, assignment.line, example: "/usr/sbin/sendmail (the default)") ?? defaultSendmail
            case "DefaultTasksMax":
                settings.defaultTasksMax = value.isEmpty ? .systemdDefault : tasksLimit("DefaultTasksMax", value, assignment.line) ?? settings.defaultTasksMax
            case "RunsTasksMax":
                settings.runsTasksMax = value.isEmpty ? nil : tasksLimit("RunsTasksMax", value, assignment.line) ?? settings.runsTasksMax
            case "UserJobsMax":
                if value.isEmpty {
                    settings.userJobsMax = defaultUserJobsMax
                } else if let limit = Int(value), limit >= 0 {
                    settings.userJobsMax = limit
                } else {
                    errors.append(ConfigError(file: path, line: assignment.line, message: "UserJobsMax=: '\(value)' is not a number of jobs",
                                              hint: "write a number such as \(defaultUserJobsMax) (the default), or 0 to allow users no jobs"))
                }
            case "UserRunsMax":
                settings.userRunsMax = runsLimit("UserRunsMax", value, assignment.line, fallback: defaultUserRunsMax)
            case "JobWaitingRunsMax":
                settings.jobWaitingRunsMax = runsLimit("JobWaitingRunsMax", value, assignment.line, fallback: defaultJobWaitingRunsMax)
            case "CatchUpBurst":
                settings.catchUpBurst = runsLimit("CatchUpBurst", value, assignment.line, fallback: defaultCatchUpBurst)
            case "UserWaitingRunsMax":
                settings.userWaitingRunsMax = runsLimit("UserWaitingRunsMax", value, assignment.line, fallback: defaultUserWaitingRunsMax)
            case "StopTimeoutMaxSec":
                settings.stopTimeoutMax = Self.stopTimeoutMax(value, path: path, line: assignment.line, errors: &errors) ?? settings.stopTimeoutMax
            case "UserConnectionsMax":
                settings.userConnectionsMax = Self.userConnectionsMax(value, path: path, line: assignment.line, errors: &errors) ?? settings.userConnectionsMax
            case "UserLogRateLimitBurst":
                settings.userLogRateLimitBurst = Self.userLogRateLimitBurst(value, path: path, line: assignment.line, errors: &errors)
                    ?? settings.userLogRateLimitBurst
            case "UserLogRateLimitIntervalSec":
                settings.userLogRateLimitInterval = Self.userLogRateLimitInterval(value, path: path, line: assignment.line, errors: &errors)
                    ?? settings.userLogRateLimitInterval
            default:
                let hint = KeySpelling.nearest(to: assignment.key, among: keys).map { "did you mean '\($0)='?" }
                    ?? "known keys: " + keys.map { $0 + "=" }.joined(separator: ", ")
                errors.append(ConfigError(file: path, line: assignment.line,
                                          message: "unknown key '\(assignment.key)=' in [Daemon]", hint: hint))
            }
        }
        return errors.isEmpty ? .success(settings) : .failure(ConfigErrors(errors))
    }
}

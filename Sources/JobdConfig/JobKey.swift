/// The keys a job file's `[Job]` section takes, and how a misspelled one is matched to a real one.
enum JobKey: String, CaseIterable {
    case description = "Description"
    case onStartupSec = "OnStartupSec"
    case onUnitActiveSec = "OnUnitActiveSec"
    case onUnitInactiveSec = "OnUnitInactiveSec"
    case onCalendar = "OnCalendar"
    case cron = "Cron"
    case randomizedDelaySec = "RandomizedDelaySec"
    case accuracySec = "AccuracySec"
    case persistent = "Persistent"
    case execStart = "ExecStart"
    case workingDirectory = "WorkingDirectory"
    case environment = "Environment"
    case environmentFile = "EnvironmentFile"
    case user = "User"
    case group = "Group"
    case runtimeMaxSec = "RuntimeMaxSec"
    case timeoutStopSec = "TimeoutStopSec"
    case overlap = "Overlap"
    case restart = "Restart"
    case restartSec = "RestartSec"
    case restartSteps = "RestartSteps"
    case restartMaxDelaySec = "RestartMaxDelaySec"
    case restartLimit = "RestartLimit"
    case onFailure = "OnFailure"
    case onSuccess = "OnSuccess"
    case killMode = "KillMode"
    case runOn = "RunOn"
    case mailTo = "MailTo"
    case mailOn = "MailOn"
    case tasksMax = "TasksMax"

    static let section = "Job"

    /// The known key nearest to `key`, if it is near enough to be a likely misspelling.
    static func suggestion(for key: String) -> JobKey? {
        KeySpelling.nearest(to: key, among: allCases.map(\.rawValue)).flatMap(JobKey.init(rawValue:))
    }
}

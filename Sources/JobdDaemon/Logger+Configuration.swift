import JobdConfig
import JobdLogging
import JobdScheduler
import Logging

extension Logger {
    /// Each configuration error as a `config.error` entry, with its file and line.
    func log(configErrors errors: [ConfigError]) {
        for error in errors {
            var fields = [JobdField.file: error.file, JobdField.reason: error.message]
            if let line = error.line { fields[JobdField.line] = String(line) }
            event(.configError, level: .error, error.description, fields)
        }
    }
}

extension Logger {
    /// A reload that read nothing (the directory could not be read): the generation keeps running.
    func reloadRejected(_ fatal: ConfigError, generation: UInt64) {
        log(configErrors: [fatal])
        event(.reloadFailed, level: .error, "reload rejected, generation \(generation) keeps running: \(fatal.message)",
              [JobdField.generation: String(generation), JobdField.reason: fatal.message])
    }

    /// A reload that applied `configuration` (all of it, or all but its broken files) as `summary` says.
    func reloadApplied(
        _ summary: Scheduler.ReloadSummary, configuration: JobdConfiguration, settings: DaemonSettings, jobFiles: JobFileCache
    ) {
        let errors = configuration.systemErrors
        log(configErrors: configuration.errors)
        let fields = [
            JobdField.generation: String(summary.generation),
            JobdField.leakGraceUSec: String(settings.leakGrace.microseconds),
        ]
        if errors.isEmpty {
            // Errors in users' own jobs break those jobs alone (their config.error entries above).
            let users = configuration.errors.count
            event(.reloadDone, "reload done: \(summary); \(jobFiles.parsed) job file(s) new or changed and read, \(jobFiles.reused) unchanged"
                  + (users == 0 ? "" : "; \(users) error(s) in users' own jobs, which break those jobs only"), fields)
        } else {
            // Applied, but not all of it: a failed `systemctl reload`, as a rejected one is.
            let reason = "\(errors.count) configuration error(s) in \(configuration.brokenSummary ?? "the configuration")"
            event(.reloadFailed, level: .error, "reload incomplete: \(reason), which keep their previous state; \(summary)",
                  fields.merging([JobdField.reason: reason]) { $1 })
        }
    }
}

extension Logger {
    /// The first generation is loaded: jobd is ready.
    func daemonReady(_ summary: Scheduler.ReloadSummary, configuration: JobdConfiguration, settings: DaemonSettings) {
        log(configErrors: configuration.errors)
        var message = "jobd ready: \(configuration.jobs.count) job(s), generation \(summary.generation)"
        if let brokenSummary = configuration.brokenSummary { message += "; \(brokenSummary) not loaded" }
        event(.daemonReady, level: configuration.errors.isEmpty ? .info : .warning, message, [
            JobdField.generation: String(summary.generation),
            JobdField.leakGraceUSec: String(settings.leakGrace.microseconds),
        ])
    }

    /// A reload has been reading the configuration for `reading`.
    func reloadIsSlow(_ reading: Duration) {
        warning("reload still reading the configuration after \(reading.components.seconds)s (a hung file system, or slow account look-ups?); jobs run on meanwhile")
    }
}

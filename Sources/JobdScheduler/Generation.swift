package import JobdConfig

/// One configuration as jobd applies it, at start and after each reload: every job's definition,
/// `jobd.conf`'s settings, and the files with errors. Immutable and shared: the scheduler, the run
/// admission and what `list` and `status` show hold the same one, in place of a table by job name
/// each.
package struct Generation: Sendable {
    /// Every job, in name order.
    package let jobs: [JobDefinition]
    /// `jobd.conf`'s settings, as the last `jobd.conf` without errors had them.
    package let settings: DaemonSettings
    /// The job files with errors, by job name.
    package let broken: [String: JobdConfiguration.BrokenJob]
    /// `jobd.conf`'s errors.
    package let settingsErrors: [ConfigError]
    /// What `STATUS=` says of the broken files (``JobdConfiguration/brokenSummary``).
    package let brokenSummary: String?

    package init(
        jobs: [JobDefinition], settings: DaemonSettings = DaemonSettings(), broken: [JobdConfiguration.BrokenJob] = [],
        settingsErrors: [ConfigError] = [], brokenSummary: String? = nil
    ) {
        // A configuration's file name order is job name order but where a name has a character that
        // sorts before `.` (`a-b.job` before `a.job`): sorted only then.
        let sorted = !zip(jobs, jobs.dropFirst()).contains { !($0.name < $1.name) }
        self.jobs = sorted ? jobs : jobs.sorted { $0.name < $1.name }
        self.settings = settings
        self.broken = Dictionary(broken.map { ($0.name, $0) }) { $1 }
        self.settingsErrors = settingsErrors
        self.brokenSummary = brokenSummary
    }

    /// The generation a read of `configuration` makes after `previous`: a broken job file keeps its
    /// job's previous definition (a new broken file adds nothing; a deleted file removes its job),
    /// and a broken `jobd.conf` keeps the settings jobd has.
    package init(_ configuration: JobdConfiguration, after previous: Generation) {
        let kept = configuration.broken.compactMap { $0.revoked ? nil : previous.definition(of: $0.name) }
        self.init(jobs: kept.isEmpty ? configuration.jobs : configuration.jobs + kept, settings: configuration.settings ?? previous.settings,
                  broken: configuration.broken, settingsErrors: configuration.settingsErrors, brokenSummary: configuration.brokenSummary)
    }

    /// The definition of job `name`: a binary search of the jobs in name order.
    package func definition(of name: String) -> JobDefinition? {
        var low = 0, high = jobs.count
        while low < high {
            let middle = (low + high) / 2
            let job = jobs[middle]
            if job.name == name { return job }
            if job.name < name { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}

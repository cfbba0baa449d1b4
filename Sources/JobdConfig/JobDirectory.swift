import Glibc
import JobdCalendar
import JobdSystem
package import JobdUnitFile
package import JobdDefinition

/// A configuration directory: `jobs.d/*.job`, one job per file, read in name order.
package struct JobDirectory: Sendable {
    /// The configuration directory, such as `/etc/jobd`.
    package var path: String
    /// Checks `[Fleet]`'s `Database=` as jobd.conf is read (JobdFleet's libpq parser).
    package var databaseCheck: FleetSettings.DatabaseCheck?

    package init(path: String, databaseCheck: FleetSettings.DatabaseCheck? = nil) {
        self.path = path
        self.databaseCheck = databaseCheck
    }

    package var jobsPath: String { path.hasSuffix("/") ? path + "jobs.d" : path + "/jobs.d" }
    /// jobd's own settings file; optional.
    package var settingsPath: String { path.hasSuffix("/") ? path + "jobd.conf" : path + "/jobd.conf" }

    /// Reads `jobd.conf` and every job file exactly as jobd does (``read()``), all or nothing: any
    /// error in any file fails the whole load, and every error found is reported (`jobctl check`).
    package func loadConfiguration() -> Result<Configuration, ConfigErrors> {
        let configuration = read()
        guard configuration.errors.isEmpty, let settings = configuration.settings else {
            return .failure(ConfigErrors(configuration.errors))
        }
        return .success(Configuration(daemon: settings, jobs: configuration.jobs))
    }

    /// Reads `jobd.conf` (if there is one) and exactly the job files at `paths`, wherever they are,
    /// as `jobctl check FILE...` does: the same checks as a load of the whole directory.
    package func loadConfiguration(files paths: [String]) -> Result<Configuration, ConfigErrors> {
        var definitions: [JobDefinition] = []
        var errors: [ConfigError] = []
        // What OnFailure=/OnSuccess= may name: the jobs of jobs.d and of the files checked.
        var names = Set(((try? jobsDirectoryNames().get()) ?? []).map { String($0.dropLast(4)) })
        for path in paths {
            let base = path.split(separator: "/").last.map(String.init) ?? path
            guard base.hasSuffix(".job"), base.count > 4 else {
                errors.append(ConfigError(
                    file: path, line: nil, message: "a job file's name must end in .job",
                    hint: "jobd reads only jobs.d/NAME.job; the job's name is NAME"))
                continue
            }
            names.insert(String(base.dropLast(4)))
            switch Self.readJobFile(path, name: String(base.dropLast(4))) {
            case .success(let definition): definitions.append(definition)
            case .failure(let fileErrors): errors += fileErrors.errors
            }
        }
        errors += Self.referenceErrors(in: definitions, names: names)
        return combine(settings: loadSettings(), jobs: errors.isEmpty ? .success(definitions) : .failure(ConfigErrors(errors)))
    }

    /// `jobd.conf`'s settings (the defaults when there is none), or its errors.
    package func loadSettings() -> Result<DaemonSettings, ConfigErrors> {
        switch FileSystem.readTextFile(settingsPath) {
        case .success(let text):
            return DaemonSettings.read(path: settingsPath, text: text, databaseCheck: databaseCheck)
        case .failure(let error) where error.errno == ENOENT:
            return .success(DaemonSettings())
        case .failure(let error):
            return .failure(ConfigErrors([ConfigError(
                file: settingsPath, line: nil, message: error.message,
                hint: error.isNotRegular ? "jobd.conf must be a regular file; remove it to use the defaults" : nil)]))
        }
    }

    /// Settings and jobs together, or every error of both, the settings' first.
    private func combine(
        settings: Result<DaemonSettings, ConfigErrors>, jobs: Result<[JobDefinition], ConfigErrors>
    ) -> Result<Configuration, ConfigErrors> {
        switch (settings, jobs) {
        case (.success(let settings), .success(let definitions)):
            return .success(Configuration(daemon: settings, jobs: definitions))
        default:
            var errors: [ConfigError] = []
            if case .failure(let failure) = settings { errors += failure.errors }
            if case .failure(let failure) = jobs { errors += failure.errors }
            return .failure(ConfigErrors(errors))
        }
    }

    static func readJobFile(_ path: String, name: String, interner: TriggerInterner? = nil) -> Result<JobDefinition, ConfigErrors> {
        jobFile(FileSystem.readTextFile(path), path: path, name: name, interner: interner)
    }

    /// The definition of the job `name` in the file at `path`, from what reading it gave. A system
    /// job's name has no `:`: `USER:JOB` names user USER's own jobs alone, so that a job of root's
    /// can never pass for one of a user's (shown to the user, started by the user's `OnFailure=`).
    static func jobFile(
        _ read: Result<String, FileAccessError>, path: String, name: String, interner: TriggerInterner?
    ) -> Result<JobDefinition, ConfigErrors> {
        if name.contains(":") {
            return .failure(ConfigErrors([ConfigError(
                file: path, line: nil, message: "'\(name)': a ':' in a job's name is kept for users' own jobs (USER:JOB)",
                hint: "rename the file without ':', such as \(name.replacingColons()).job")]))
        }
        switch read {
        case .failure(let error):
            return .failure(ConfigErrors([ConfigError(
                file: path, line: nil, message: error.message,
                hint: error.isNotRegular ? "remove it, or rename it so that its name does not end in .job" : nil)]))
        case .success(let text):
            return JobFileReader.read(name: name, path: path, text: text, interner: interner)
        }
    }

    /// Reads every job file (not `jobd.conf`) as jobd does, all or nothing: any error in any
    /// file fails the whole load, and every error found is reported.
    package func load() -> Result<[JobDefinition], ConfigErrors> {
        let configuration = read()
        let errors = (configuration.fatal.map { [$0] } ?? []) + configuration.broken.flatMap(\.errors)
        return errors.isEmpty ? .success(configuration.jobs) : .failure(ConfigErrors(errors))
    }

    /// The errors of `definitions` that name a job none of `names` is, in the definitions' order.
    private static func referenceErrors(in definitions: [JobDefinition], names: Set<String>) -> [ConfigError] {
        let unknown = JobReference.unknownReferences(in: definitions, names: names)
        return unknown.isEmpty ? [] : definitions.flatMap { unknown[$0.name] ?? [] }
    }

    /// The job files' names (`*.job`, not hidden) in name order; an error when the configuration
    /// directory or `jobs.d` cannot be read (a missing `jobs.d` means no jobs).
    func jobFileNames() -> Result<[String], ConfigError> {
        configurationDirectoryError().map(Result.failure) ?? jobsDirectoryNames()
    }

    /// Why the configuration directory cannot be read, if it cannot.
    func configurationDirectoryError() -> ConfigError? {
        guard case .failure(let error) = FileSystem.directoryEntries(path) else { return nil }
        return ConfigError(
            file: path, line: nil,
            message: "cannot read the configuration directory: \(error.message)",
            hint: "pass the directory that holds jobs.d/ with --config-dir")
    }

    /// The job files' names in `jobs.d`, as ``jobFileNames()`` has them.
    func jobsDirectoryNames() -> Result<[String], ConfigError> {
        switch FileSystem.directoryEntries(jobsPath) {
        case .success(let entries): return .success(entries.filter { $0.hasSuffix(".job") && !$0.hasPrefix(".") }.sorted())
        case .failure(let error) where error.errno == ENOENT: return .success([])
        case .failure(let error):
            return .failure(ConfigError(file: jobsPath, line: nil, message: "cannot read the jobs directory: \(error.message)"))
        }
    }
}

private extension String {
    func replacingColons() -> String { String(map { $0 == ":" ? "-" : $0 }) }
}

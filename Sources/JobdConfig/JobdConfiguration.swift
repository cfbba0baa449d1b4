import Glibc
import JobdCalendar

/// A configuration directory as jobd reads it at start and at each reload: every job file that is
/// valid, every one that is not (a broken file disables its own job only), and `jobd.conf`'s
/// settings unless that file is broken too.
package struct JobdConfiguration: Sendable {
    /// A job file with errors; its job does not run (or keeps its previous definition on a reload).
    package struct BrokenJob: Sendable, Equatable {
        package var name: String
        package var path: String
        package var errors: [ConfigError]
    }

    /// `jobd.conf`'s settings; `nil` when the file has errors (jobd then keeps the settings it has).
    package var settings: DaemonSettings?
    package var settingsErrors: [ConfigError] = []
    /// Every valid job, in file name order.
    package var jobs: [JobDefinition] = []
    /// Every job file with errors, in file name order.
    package var broken: [BrokenJob] = []
    /// An error that keeps jobd from reading the configuration at all (the directory cannot be read).
    package var fatal: ConfigError?

    /// Every error found, `jobd.conf`'s first.
    package var errors: [ConfigError] {
        (fatal.map { [$0] } ?? []) + settingsErrors + broken.flatMap(\.errors)
    }

    /// What `STATUS=` and `jobctl list` say of the broken files: "2 broken job file(s): a.job, b.job".
    package var brokenSummary: String? {
        let files = broken.map { String($0.path.split(separator: "/").last ?? Substring($0.path)) }
            + (settingsErrors.isEmpty ? [] : ["jobd.conf"])
        guard !files.isEmpty else { return nil }
        let shown = files.prefix(5).joined(separator: ", ") + (files.count > 5 ? ", …" : "")
        return "\(files.count) broken file(s): \(shown)"
    }
}

extension JobDirectory {
    /// Reads `jobd.conf` and every job file, each on its own: an error in one file disables that
    /// file's job (or `jobd.conf`'s settings) only, and every error found is reported.
    package func read() -> JobdConfiguration {
        read { path, name in Self.readJobFile(path, name: name) }
    }

    /// As ``read()``, but reuses from `cache` the definition of every job file unchanged since the
    /// read that filled it, reads and parses only the others, and leaves this read's in `cache`
    /// for the next: what a reload does (see ``JobFileCache`` for what counts as unchanged).
    package func read(using cache: inout JobFileCache) -> JobdConfiguration {
        cache.beginRead()
        defer { cache.endRead() }
        return read { path, name in cache.definition(at: path) { Self.readJobFile(path, name: name) } }
    }

    private func read(jobFile: (_ path: String, _ name: String) -> Result<JobDefinition, ConfigErrors>) -> JobdConfiguration {
        // Zones named in calendar triggers are read again if their files changed (tzdata upgrade).
        TimeZoneRules.revalidateCache()
        var configuration = JobdConfiguration()
        switch loadSettings() {
        case .success(let settings): configuration.settings = settings
        case .failure(let failure): configuration.settingsErrors = failure.errors
        }
        switch jobFileNames() {
        case .failure(let error):
            configuration.fatal = error
        case .success(let names):
            for entry in names {
                let filePath = jobsPath + "/" + entry
                let name = String(entry.dropLast(4))
                switch jobFile(filePath, name) {
                case .success(let definition): configuration.jobs.append(definition)
                case .failure(let errors): configuration.broken.append(.init(name: name, path: filePath, errors: errors.errors))
                }
            }
        }
        return configuration
    }
}

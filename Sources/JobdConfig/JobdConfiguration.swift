package import Glibc
import JobdCalendar
import JobdSystem
package import JobdUnitFile
package import JobdDefinition

/// A configuration directory as jobd reads it at start and at each reload: every job file that is
/// valid, every one that is not (a broken file disables its own job only), and `jobd.conf`'s
/// settings unless that file is broken too.
package struct JobdConfiguration: Sendable {
    /// A job file with errors; its job does not run (or keeps its previous definition on a reload).
    package struct BrokenJob: Sendable, Equatable {
        package var name: String
        /// The user whose own job it is (``UserJobStore``), as the load found it; `nil` for a
        /// system job file. Who may see and act on the broken job is decided by it, never by
        /// the name or the path.
        package var owner: String?
        /// The uid of that user, when the file was read as the account's: who may see and act on
        /// the broken job. `nil` for a system job file, and for a file no live account owns (the
        /// account is gone, or the file is another uid's): only root's then.
        package var ownerUID: uid_t?
        package var path: String
        package var errors: [ConfigError]
        /// Its user may no longer have this job (``UserJobStore``: `users.deny`/`users.allow`, the
        /// account is gone, the file is not the account's, or beyond `UserJobsMax=`): unlike a
        /// file with an error in it, which keeps its job's previous definition, it keeps nothing,
        /// and its runs in flight are stopped.
        package var revoked: Bool

        package init(
            name: String, owner: String? = nil, ownerUID: uid_t? = nil, path: String, errors: [ConfigError], revoked: Bool = false
        ) {
            self.name = name
            self.owner = owner
            self.ownerUID = ownerUID
            self.path = path
            self.errors = errors
            self.revoked = revoked
        }
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

    /// The errors of root's configuration: ``errors`` but those of users' own jobs, which break
    /// only those jobs and are their users' to mend. They alone make a reload incomplete.
    package var systemErrors: [ConfigError] {
        (fatal.map { [$0] } ?? []) + settingsErrors + broken.filter { $0.owner == nil }.flatMap(\.errors)
    }

    /// Whose each of ``errors`` is, in the same order: the user of a user's own job file and the
    /// uid its load recorded (``BrokenJob/ownerUID``), else `nil`.
    package var errorOwners: [(user: String, uid: uid_t?)?] {
        Array(repeating: nil, count: (fatal == nil ? 0 : 1) + settingsErrors.count)
            + broken.flatMap { job in job.errors.map { _ in job.owner.map { (user: $0, uid: job.ownerUID) } } }
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

extension JobdConfiguration {
    /// Moves each job that names a job no file defines to ``broken``, with an error for each such
    /// name (``JobReference/unknownReferences(in:names:)``). Checked at every read, cached files
    /// included: a reload that removes a job another still names reports that job broken.
    mutating func breakUnknownReferences(names: Set<String>) {
        let unknown = JobReference.unknownReferences(in: jobs, names: names)
        guard !unknown.isEmpty else { return }
        breakJobs { unknown[$0.name] ?? [] }
    }
}

extension JobdConfiguration {
    /// Moves each job for which `errors` finds any to ``broken``, with them: a job that asks
    /// for what this jobd cannot do (``JobdConfiguration/breakUnknownReferences(names:)`` does the
    /// same for names).
    package mutating func breakJobs(_ errors: (JobDefinition) -> [ConfigError]) {
        var moved = false
        jobs.removeAll { definition in
            let found = errors(definition)
            guard !found.isEmpty else { return false }
            broken.append(BrokenJob(name: definition.name, owner: definition.owningUser, ownerUID: definition.owningUID, path: definition.path, errors: found))
            moved = true
            return true
        }
        if moved { broken.sort { $0.path < $1.path } }
    }
}

extension JobDirectory {
    /// Reads `jobd.conf` and every job file, each on its own: an error in one file disables that
    /// file's job (or `jobd.conf`'s settings) only, and every error found is reported.
    package func read() -> JobdConfiguration {
        var cache = JobFileCache()
        return read(using: &cache)
    }

    /// As ``read()``, but reuses from `cache` the definition of every job file unchanged since the
    /// read that filled it, reads and parses only the others (on every core), and leaves this
    /// read's in `cache` for the next: what a reload does (see ``JobFileCache`` for what counts as
    /// unchanged).
    package func read(using cache: inout JobFileCache) -> JobdConfiguration {
        defer { cache.endRead() }
        // Zones named in calendar triggers are read again if their files changed (tzdata upgrade).
        TimeZoneRules.revalidateCache()
        var configuration = JobdConfiguration()
        switch loadSettings() {
        case .success(let settings): configuration.settings = settings
        case .failure(let failure): configuration.settingsErrors = failure.errors
        }
        let names: [String], kept: [JobDefinition?]
        switch configurationDirectoryError().map(Result.failure) ?? cache.beginRead(in: jobsPath, listing: jobsDirectoryNames) {
        case .failure(let error):
            configuration.fatal = error
            return configuration
        case .success(let found):
            (names, kept) = found
        }
        let unread = kept.indices.filter { kept[$0] == nil }
        let read = readJobFiles(named: unread.map { (names[$0], cache.stamp(of: $0)) })
        var results: [Result<JobDefinition, ConfigErrors>?] = kept.map { $0.map { .success($0) } }
        for (index, file) in zip(unread, read) {
            cache.store(index, result: file.result, status: file.status)
            results[index] = file.result
        }
        configuration.jobs.reserveCapacity(names.count)
        for (index, result) in results.enumerated() {
            switch result! {
            case .success(let definition): configuration.jobs.append(definition)
            case .failure(let errors):
                configuration.broken.append(.init(name: String(names[index].dropLast(4)), path: jobsPath + "/" + names[index], errors: errors.errors))
            }
        }
        configuration.breakUnknownReferences(names: Set(names.lazy.map { String($0.dropLast(4)) }))
        return configuration
    }

    /// Reads and checks the job files `files` of `jobs.d` on every core: reading and parsing are
    /// most of a start or reload, and each file is read on its own. The results come in order.
    /// Each file is read by its name relative to the open directory when its stamp (what the
    /// cache's `fstatat` found) says which file to expect there
    /// (``FileSystem/readFile(named:in:device:inode:limit:)``), and otherwise by its path. Each
    /// result comes with the status of the file its text came from (`nil` when it could not be
    /// read): what the cache keeps the definition by.
    func readJobFiles(
        named files: [(name: String, stamp: JobFileCache.Stamp?)]
    ) -> [(result: Result<JobDefinition, ConfigErrors>, status: stat?)] {
        let jobsPath = self.jobsPath
        let directory = files.contains(where: { $0.stamp != nil }) ? open(jobsPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
        defer { if directory >= 0 { close(directory) } }
        // Four chunks a core: files differ in cost. A trigger interner per chunk: not thread-safe.
        return files.concurrentMap(minimumChunk: 32, chunksPerCore: 4, chunkState: { TriggerInterner() }) { interner, file in
            let path = jobsPath + "/" + file.name
            let read = file.stamp.flatMap { stamp in
                directory >= 0 ? FileSystem.readFile(named: file.name, in: directory, device: stamp.device, inode: stamp.inode) : nil
            } ?? FileSystem.readFile(path)
            let result = Self.jobFile(read.map(\.text), path: path, name: String(file.name.dropLast(4)), interner: interner)
            return (result, try? read.get().status)
        }
    }
}

extension JobdConfiguration {
    /// A configuration as a source other than ``JobDirectory`` gives it (the daemon's tests).
    package init(jobs: [JobDefinition], broken: [BrokenJob] = [], settings: DaemonSettings?, fatal: ConfigError? = nil) {
        self.init()
        self.jobs = jobs
        self.broken = broken
        self.settings = settings
        self.fatal = fatal
    }
}

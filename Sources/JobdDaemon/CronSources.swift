import Glibc
import JobdConfig
import JobdPolicy
import JobdImport

/// cron's files, read for jobd's cron mode (`[Cron]` `Enable=yes`): `/etc/crontab`, the files of
/// `/etc/cron.d` whose names run-parts would run, and the crontabs of `/var/spool/cron/crontabs`,
/// each with what `lstat`/`fstat` say of it; ``CronTable`` decides what runs. `root` stands for `/`
/// (``DaemonOptions/cronRoot``, `$JOBD_CRON_ROOT` in tests), as for crontab(1)'s spool and
/// `cron.allow`, so that cron mode reads the very spool `crontab` writes.
struct CronSources: Sendable {
    var root: String
    /// jobd's environment, where `$JOBD_CRON_MODE` may make cron mode the default (``CronSettings``).
    var environment: [String: String]

    init(root: String, environment: [String: String]) {
        self.root = root
        self.environment = environment
    }

    init(options: DaemonOptions) {
        self.init(root: options.cronRoot, environment: options.environment)
    }

    var crontab: String { DaemonOptions.under(root, "/etc/crontab") }
    var cronDirectory: String { DaemonOptions.under(root, "/etc/cron.d") }
    var spoolDirectory: String { DaemonOptions.under(root, CrontabSpool.defaultPath) }

    /// The files cron reads, in its order: `/etc/crontab`, then `/etc/cron.d` and the spool, each in name order.
    func files() -> [CronSourceFile] {
        var files: [CronSourceFile] = []
        if let file = CronSourceFile.read(crontab, kind: .systemCrontab, followLink: true) { files.append(file) }
        for name in Self.names(in: cronDirectory) where CronSourceFile.countsInCronDirectory(name) {
            if let file = CronSourceFile.read(cronDirectory + "/" + name, kind: .cronDirectory(name: name), followLink: true) { files.append(file) }
        }
        for name in Self.names(in: spoolDirectory) where CronSourceFile.countsInSpool(name) {
            if let file = CronSourceFile.read(spoolDirectory + "/" + name, kind: .spool(user: name), followLink: false) { files.append(file) }
        }
        return files
    }

    /// The jobs of every file, and what is broken, as ``CronTable`` reads them.
    func read(settings: CronSettings) -> CronTable.Result {
        var result = CronTable.Result()
        var accounts: [String: CronTable.Account?] = [:]
        for file in files() {
            let table = CronTable.read(file, failureResult: settings.failureResult) { name in
                if let known = accounts[name] { return known }
                let found = CronTable.account(named: name)
                accounts[name] = found
                return found
            }
            result.jobs += table.jobs
            result.broken += table.broken
            result.warnings += table.warnings
        }
        return result
    }

    private static func names(in directory: String) -> [String] {
        guard case .success(let entries) = FileSystem.directoryEntries(directory) else { return [] }
        return entries.filter { !$0.hasPrefix(".") }.sorted()
    }
}

extension JobdConfiguration {
    /// Adds the jobs of cron's files (``CronSources``) to those already read: a job file or a
    /// user's job of the same name wins, and the cron line is reported broken. Returns the lines
    /// that run but probably not as meant, for the journal.
    @discardableResult
    mutating func addCronJobs(from sources: CronSources) -> [ConfigError] {
        guard let cron = settings?.cron, cron.isEnabled(environment: sources.environment) else { return [] }
        let result = sources.read(settings: cron)
        let taken = Set(jobs.lazy.map(\.name) + broken.lazy.map(\.name))
        for job in result.jobs {
            if taken.contains(job.name) {
                broken.append(BrokenJob(name: job.name, owner: job.owningUser, ownerUID: job.owningUID, path: job.path, errors: [ConfigError(
                    file: job.path, line: job.cron?.line, message: "a job file is named \(job.name) too, and runs instead",
                    hint: "rename that job file")]))
            } else {
                jobs.append(job)
            }
        }
        broken += result.broken.filter { !taken.contains($0.name) }
        return result.warnings
    }
}

extension ConfigError {
    /// The problem as a warning line for the journal: the line runs all the same.
    var warningLine: String {
        "\(location): warning: \(message)" + (hint.map { "; \($0)" } ?? "")
    }
}

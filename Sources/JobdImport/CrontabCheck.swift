import JobdConfig

/// What `crontab` checks before it installs a user's crontab, and `jobctl check` of cron's files: each line read as jobd's cron mode
/// reads it (``CrontabImporter``, the parser `jobctl import cron` and `jobctl check` use), so that
/// a crontab with a line that would not run as written is refused with that line, as Debian's
/// crontab refuses one its parser rejects ("errors in crontab file, can't install.").
package struct CrontabCheck: Sendable, Equatable {
    /// Lines `PATH:LINE: error: …`: any of them refuses the crontab.
    package var errors: [String] = []
    /// Lines `PATH:LINE: warning: …`: the crontab is installed, but runs as cron would run it,
    /// which is probably not what was meant (a `%` inside quotes, an idiom that exits non-zero).
    package var warnings: [String] = []

    package init(errors: [String] = [], warnings: [String] = []) {
        self.errors = errors
        self.warnings = warnings
    }

    /// Checks `bytes` as `user`'s crontab, naming it `path` in every line; `homeDirectory` looks up
    /// a user's home (where cron starts the commands).
    package static func check(_ bytes: [UInt8], user: String, path: String, homeDirectory: @escaping @Sendable (String) -> String?) -> CrontabCheck {
        let options = CrontabImporter.Options(path: path, systemFormat: false, user: user, homeDirectory: homeDirectory)
        let report = CrontabImporter.convert(bytes, options: options).report
        var check = CrontabCheck()
        for entry in report.entries.sorted(by: { ($0.line ?? 0) < ($1.line ?? 0) }) {
            let location = entry.line.map { "\(path):\($0)" } ?? path
            switch entry.kind {
            case .refused, .notCarriedOver: check.errors.append("\(location): error: \(entry.message)")
            case .warning: check.warnings.append("\(location): warning: \(entry.message)")
            case .imported, .note: break
            }
        }
        return check
    }

    /// Checks one of cron's files as jobd's cron mode reads it (``CronTable``: cron's checks of
    /// the file's owner and mode, the system format by location, every line): what `jobctl check`
    /// reports of `/etc/crontab`, a cron.d file or a spool crontab. `account` looks up a user.
    package static func check(_ source: CronSourceFile, account: @escaping (String) -> CronTable.Account?) -> CrontabCheck {
        let table = CronTable.read(source, failureResult: .judge, account: account)
        let errors = table.broken.flatMap(\.errors).sorted { ($0.line ?? 0) < ($1.line ?? 0) }
        let warnings = table.warnings.sorted { ($0.line ?? 0) < ($1.line ?? 0) }
        return CrontabCheck(errors: errors.map(\.description), warnings: warnings.map { "\($0.location): warning: \($0.message)" })
    }
}

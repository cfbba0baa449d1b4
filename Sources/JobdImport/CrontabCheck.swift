package import JobdConfig

/// What `crontab` checks before it installs a user's crontab, and what `jobctl check` reports of
/// cron's files: each read by cron mode's own reader (``CronTable``), the very function that turns
/// them into jobs, so that a crontab is accepted exactly when cron mode will run every line of it
/// as written, and one it would not is refused with that line, as Debian's crontab refuses one its
/// parser rejects ("errors in crontab file, can't install.").
package struct CrontabCheck: Sendable, Equatable {
    /// Lines `PATH:LINE: error: …` (each with its `note:` line, where there is a hint): any of them
    /// refuses the crontab.
    package var errors: [String] = []
    /// Lines `PATH:LINE: warning: …`: the crontab is installed, but runs as cron would run it,
    /// which is probably not what was meant (a `%` inside quotes, an idiom that exits non-zero).
    package var warnings: [String] = []
    /// Lines `PATH: note: …`: a file cron mode passes over (``CronSourceFile/Kind/unreadReason``),
    /// so that neither errors nor their absence are taken for what will run.
    package var notes: [String] = []

    package init(errors: [String] = [], warnings: [String] = [], notes: [String] = []) {
        self.errors = errors
        self.warnings = warnings
        self.notes = notes
    }

    /// Checks `bytes` as `user`'s crontab about to be installed, naming it `path` in every line:
    /// the spool file crontab(1) would write (`user`'s, mode 0600), read as cron mode will read it.
    /// `failureResult` is jobd.conf's `[Cron] FailureResult=`, which decides whether an idiom that
    /// exits non-zero is worth a warning; `account` looks up a user.
    package static func check(
        crontab bytes: [UInt8], of user: String, path: String, failureResult: CronSettings.FailureResult = .judge,
        account: @escaping (String) -> CronTable.Account?
    ) -> CrontabCheck {
        // As the spool writer leaves it, so that only cron's refusal of an unknown user remains.
        let owner = account(user)
        let status = CronSourceFile.Status(uid: owner?.uid ?? 0, permissions: 0o600)
        let source = CronSourceFile(path: path, kind: .spool(user: user), status: status, bytes: bytes)
        // A crontab cron mode would pass over is refused, not installed to run never.
        if let reason = source.kind.unreadReason {
            return CrontabCheck(errors: ["\(path): error: cron mode would not read \(user)'s crontab: \(reason)"])
        }
        return check(source, failureResult: failureResult) { $0 == user ? owner : account($0) }
    }

    /// Checks one of cron's files as jobd's cron mode reads it (``CronTable``: cron's checks of
    /// the file's owner and mode, the system format by location, every line): what `jobctl check`
    /// reports of `/etc/crontab`, a cron.d file or a spool crontab. `account` looks up a user.
    package static func check(
        _ source: CronSourceFile, failureResult: CronSettings.FailureResult = .judge, account: @escaping (String) -> CronTable.Account?
    ) -> CrontabCheck {
        if let reason = source.kind.unreadReason {
            return CrontabCheck(notes: ["\(source.path): note: cron mode does not read this file, as cron does not: \(reason)"])
        }
        let table = CronTable.read(source, failureResult: failureResult, account: account)
        let errors = table.broken.flatMap(\.errors).sorted { ($0.line ?? 0) < ($1.line ?? 0) }
        let warnings = table.warnings.sorted { ($0.line ?? 0) < ($1.line ?? 0) }
        return CrontabCheck(errors: errors.map(\.description), warnings: warnings.map { warning in
            "\(warning.location): warning: \(warning.message)" + (warning.hint.map { "\n\(warning.location): note: \($0)" } ?? "")
        })
    }
}

import JobdCalendar
package import JobdConfig
import JobdPolicy

/// One of cron's files (``CronSourceFile``) as jobd's cron mode runs it: each command line a job
/// that runs as Debian's cron runs it (the importer's conversion, ``CrontabImporter``), under a
/// name made from the file and the line's text. A file cron would not read at all (its owner, its
/// mode) runs nothing and is one broken entry; a line that is broken disables that line alone,
/// where Debian's cron drops the whole file. Pure: the caller reads the file and the accounts.
///
/// Names: `crontab-HASH` for `/etc/crontab`, `cron.d-FILE-HASH` for `/etc/cron.d/FILE` and
/// `USER:crontab-HASH` for USER's crontab (a user's own job), HASH the first 8 hex digits of the
/// FNV-1a hash of the line's text without its blanks at either end, `-2`, `-3`… after it for the
/// same line again. Not the line number: a line added above (a package's update, `crontab -e`)
/// would rename every job below it, and a rename loses the job's history and, at the minute's
/// turn, could skip or repeat a run. A line whose text changes is a new job, as it would be
/// edited into one anyway; a variable changed above it changes the job, not its name.
package enum CronTable {
    /// What cron needs of an account: its uid (whose file a crontab must be) and home directory.
    package typealias Account = (uid: UInt32, home: String?)

    /// `name`'s account as cron looks one up (getpwnam's): by its name, never a uid written as one.
    package static func account(named name: String) -> Account? {
        JobdSystem.Account.named(name).map { (uid: $0.uid, home: $0.home) }
    }

    package struct Result: Sendable {
        package var jobs: [JobDefinition] = []
        package var broken: [JobdConfiguration.BrokenJob] = []
        /// Lines that run, but probably not as meant (``CronCommand/failingTestIdiom(_:)``).
        package var warnings: [ConfigError] = []

        package init(jobs: [JobDefinition] = [], broken: [JobdConfiguration.BrokenJob] = [], warnings: [ConfigError] = []) {
            self.jobs = jobs
            self.broken = broken
            self.warnings = warnings
        }
    }

    /// cron's default `PATH` (glibc's `_PATH_DEFPATH`) and shell.
    static let defaultPath = "/usr/bin:/bin"
    static let defaultShell = "/bin/sh"

    /// The name of the file as a whole, for the one broken entry of a file cron would not read.
    package static func fileName(_ kind: CronSourceFile.Kind) -> String {
        switch kind {
        case .systemCrontab: "crontab"
        case .cronDirectory(let name): "cron.d-" + name
        case .spool(let user): UserJobStore.jobName(user: user, job: "crontab")
        }
    }

    /// The name of the job of a line whose text is `text`, the `occurrence`th such line of its file.
    package static func jobName(_ kind: CronSourceFile.Kind, text: String, occurrence: Int = 1) -> String {
        fileName(kind) + "-" + fingerprint(text) + (occurrence > 1 ? "-\(occurrence)" : "")
    }

    /// 8 hex digits of the FNV-1a hash (64-bit, folded) of `text` without blanks at either end: the
    /// same on every machine and every run, unlike Swift's seeded `Hasher`.
    static func fingerprint(_ text: String) -> String {
        let scalars = text.unicodeScalars.drop(while: CrontabLine.isBlank)
        var end = scalars.endIndex
        while end > scalars.startIndex, CrontabLine.isBlank(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in String(scalars[..<end]).utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let folded = UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        let digits = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The jobs of `source`, and its broken lines; `account` looks up a user by name, once a name
    /// for the file (a user's crontab names its owner on every line: one NSS look-up, not one a line).
    package static func read(
        _ source: CronSourceFile, failureResult: CronSettings.FailureResult, account lookUp: @escaping (String) -> Account?
    ) -> Result {
        var known: [String: Account?] = [:]
        let account = { (name: String) -> Account? in
            if let found = known[name] { return found }
            let found = lookUp(name)
            known[name] = found
            return found
        }
        var result = Result()
        var owner: String?
        if case .spool(let user) = source.kind { owner = user }
        func breakFile(_ message: String, hint: String?) -> Result {
            Result(broken: [.init(name: fileName(source.kind), owner: owner, path: source.path,
                                  errors: [ConfigError(file: source.path, line: nil, message: message, hint: hint)], revoked: true)])
        }
        if let owner, !UserJobStore.isValidOwnName(owner) {
            return breakFile("not read: '\(owner)' cannot name jobs (letters, digits and '_.@-' only)", hint: nil)
        }
        let userUID: UInt32? = if let owner { account(owner)?.uid } else { 0 }
        // The file is the user's or root's (as Debian's cron checks); its jobs are the account's uid.
        if let refusal = source.refusal(userUID: userUID) {
            return breakFile("not read, as cron would not: \(refusal)", hint: source.refusalHint)
        }
        var reader = LineReader(source: source, owner: owner, ownerUID: owner == nil ? nil : userUID, failureResult: failureResult, account: account)
        for line in CrontabText.lines(source.bytes) where !line.isComment {
            reader.read(line, into: &result)
        }
        return result
    }
}

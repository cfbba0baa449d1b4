/// A request from a client. On the wire through ``jsonLine`` and ``init(jsonLine:)``; `Codable`
/// is the tests' and the fuzz target's reference for them.
package struct ControlRequest: Codable, Sendable, Equatable {
    package enum Command: String, Codable, Sendable, CaseIterable {
        /// The daemon's status, or one job's with `job`.
        case status
        /// Every job with its next and last elapse, as `systemctl list-timers`.
        case list
        /// Start a run of `job` now; with `wait`, answer again when it ends.
        case run
        /// Answer `reload-subscribed` at once and `reload-result` when the next reload ends.
        case watchReload = "watch-reload"
        /// Stop `job`'s runs in flight (and drop its waiting run and pending retry); with `wait`,
        /// answer again when they have ended.
        case stop
        /// Keep `job`'s triggers from starting runs (`jobctl run` still does), across reloads and restarts.
        case disable
        /// Undo `disable`.
        case enable
        /// The text of the caller's own job `job` (`USER:JOB`), to edit: a `user-file` answer,
        /// without `text` when there is no such job yet.
        case userFile = "user-file"
        /// Check `text` as the caller's own job `job` and, when it has no error, keep it (an empty
        /// `text` removes the job) and reload: `user-saved`, then as `watch-reload`. Errors name
        /// `path` (the client's copy) and come as an `invalid-job` error.
        case userSave = "user-save"
        /// The last `lines` (10 by default, at most 1,000) journal entries of the runs of the
        /// caller's own job `job`, which the caller could not read in the journal itself: a
        /// `log-entry` each, oldest first, then the connection closes. With `history`, what
        /// `jobctl why` reads.
        case logs
        /// Every elapse of the jobs (all, or those `jobs` names) from `fromUSec` (now by default)
        /// to `untilUSec`, the first `limit`: a `plan` answer.
        case plan
        /// What a reload would do now, without doing it: a `reload-preview` answer. Nothing in
        /// jobd changes (no generation, owner or history).
        case reloadPreview = "reload-preview"
        /// `crontab -l`: the caller's crontab in cron's spool (another `user`'s for root), header
        /// included: a `crontab` answer, without `text` when there is none.
        case crontabList = "crontab-list"
        /// `crontab FILE`, `crontab -e`: check `text` as the crontab of the caller (or of `user`,
        /// for root) and, when it has no error, install it in cron's spool with Debian's header
        /// naming `path`: `crontab-saved`; errors come as an `invalid-job` error, with `path` and line.
        case crontabInstall = "crontab-install"
        /// `crontab -r`: remove the caller's (or `user`'s) crontab: `crontab-saved`.
        case crontabRemove = "crontab-remove"
    }

    package var version: Int
    package var command: Command
    package var job: String?
    package var wait: Bool?
    /// With `run` and `wait`: the run's output too, as `run-output` lines (the default when `wait`).
    package var output: Bool?
    /// With `list`: each job's status without `file`, `command`, `description` and `runs`, which
    /// `jobctl list`'s table does not show (about half the reply at 10,000 jobs). A jobd that
    /// predates it ignores it and sends them.
    package var brief: Bool?
    /// With `run` and `wait`: wait on through the run's retries and the runs its last attempt
    /// starts (`OnFailure=`, `OnSuccess=`): a `run-finished` for each, then the connection closes.
    /// A jobd that predates it answers the first run's end only.
    package var followRetries: Bool?
    /// With `user-save`: the job file's text.
    package var text: String?
    /// With `user-save`: what errors call the file (the copy the client edited); never opened.
    package var path: String?
    /// With `logs`: how many entries.
    package var lines: Int?
    /// With `logs`: instead of the last entries, those `jobctl why` explains the job's elapses by
    /// (``JournalReader/jobHistory(of:in:runs:limit:trusted:)``, `lines` runs of them), each as a
    /// `log-entry` with `fields`. A jobd that predates it sends the last entries.
    package var history: Bool?
    /// With `plan`: which jobs (all when absent), the window in wall-clock microseconds, and how many elapses at most.
    package var jobs: [String]?
    package var fromUSec: Int64?
    package var untilUSec: Int64?
    package var limit: Int?
    /// With `crontab-*`: whose crontab, when root asks for another user's (`crontab -u USER`).
    package var user: String?

    package init(
        command: Command, job: String? = nil, wait: Bool? = nil, output: Bool? = nil, brief: Bool? = nil, followRetries: Bool? = nil,
        lines: Int? = nil
    ) {
        self.lines = lines
        self.version = ControlProtocol.version
        self.command = command
        self.job = job
        self.wait = wait
        self.output = output
        self.brief = brief
        self.followRetries = followRetries
    }

    /// Whether the reply streams a run's output: a client that reads slowly then holds its
    /// connection for the whole run, and loses lines rather than slow jobd down.
    package var streamsOutput: Bool { command == .run && wait == true && output != false }

    /// Whether the request is about `user`'s own jobs only: it names one of them (`USER:JOB`).
    package func isAbout(jobsOf user: String) -> Bool {
        guard let job, job.hasPrefix(user + ":"), job.count > user.count + 1 else { return false }
        return command != .watchReload && command != .list
    }

    /// Whether the request is one of `crontab`'s, about a crontab in cron's spool.
    package var isCrontab: Bool { command == .crontabList || command == .crontabInstall || command == .crontabRemove }
}

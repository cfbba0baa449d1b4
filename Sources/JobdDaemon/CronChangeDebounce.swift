import JobdTimers

/// When cron's files have changed enough to reload: one write is several inotify events, often
/// in more than one read (a created file's `IN_CREATE` and, after its write, `IN_CLOSE_WRITE`; an
/// editor's rename away, create, write and chmod), and reloading at each would read half-written
/// files and reload twice. Changes are gathered until the files have been quiet for ``quiet``, or
/// for at most ``longest`` after the first, so a file written without pause still reloads.
/// A pure decision over the event batches ``CronWatch`` reads and the times it reads them at.
struct CronChangeDebounce {
    /// How long the files must be quiet after a change before it is acted on.
    let quiet: Duration
    /// The longest a change waits however busy the files stay.
    let longest: Duration
    private var first: MonotonicInstant?
    private var last: MonotonicInstant?
    private var changed: [String] = []

    init(quiet: Duration = .milliseconds(300), longest: Duration = .seconds(2)) {
        self.quiet = quiet
        self.longest = longest
    }

    /// Whether changes are waiting for their reload.
    var isPending: Bool { first != nil }

    /// Notes a batch of changed paths heard at `now`; an empty batch (events about nothing cron
    /// reads) neither starts nor prolongs a wait.
    mutating func heard(_ paths: [String], at now: MonotonicInstant) {
        guard !paths.isEmpty else { return }
        if first == nil { first = now }
        last = now
        for path in paths where !changed.contains(path) { changed.append(path) }
    }

    /// When the waiting changes are due: the quiet time after the last, capped at the longest
    /// wait after the first; `nil` with nothing waiting.
    var deadline: MonotonicInstant? {
        guard let first, let last else { return nil }
        return min(last.advanced(by: quiet), first.advanced(by: longest))
    }

    /// At `now`, what changed, for the one reload, if the waiting changes are due; they are then
    /// forgotten. `nil` while they are not due, or with nothing waiting.
    mutating func due(at now: MonotonicInstant) -> String? {
        guard let deadline, now >= deadline else { return nil }
        let what = changed.count == 1 ? changed[0] : changed.joined(separator: ", ")
        first = nil
        last = nil
        changed = []
        return what
    }
}

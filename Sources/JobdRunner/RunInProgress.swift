import JobdConfig
import JobdTimers

/// What ``JobRunner`` holds of one run while it performs its ``RunLifecycle``'s actions: the
/// things those actions made (the account, the spawn configuration, the cgroup, `PrivateTmp=`'s
/// directories), which the lifecycle, a pure value, only knows by whether they exist.
struct RunInProgress: Sendable {
    /// An event from one of the run's tasks; `acknowledge` is called once its actions are performed
    /// (the process's first output waits for its `run.start`).
    struct Posted: Sendable {
        var event: RunLifecycle.Event
        var acknowledge: (@Sendable () -> Void)?
    }

    let definition: JobDefinition
    let context: [String: String]
    let fence: RunFence?
    let started: MonotonicInstant
    /// The registry's stop requests for the run, which its watch waits on.
    let requests: AsyncStream<StopReason>
    var inbox: AsyncStream<Posted>.Continuation?
    var account: Account?
    var configuration: SpawnConfiguration?
    var cgroup: RunCgroup?
    var privateTmp: PrivateTmp?
    /// What the run writes, kept for `MailTo=` (cron's `MAILTO`) only.
    let mailed: MailedOutput?
    /// The SIGKILL's delay, fixed when SIGTERM went (jobd's own stop may have shortened it).
    var stopGrace = TimeSpan.infinity
    /// Ends the watch beside the process.
    var endWatch: AsyncStream<Void>.Continuation?
    var outcome: RunOutcome?
    var mail: RunMail?
    /// The process an earlier jobd started and handed over, for a run this jobd adopts (issue 36):
    /// nothing is prepared or spawned for it, and its start is logged as `run.adopt`.
    var adopted: AdoptedProcess?

    init(definition: JobDefinition, context: [String: String], fence: RunFence?, started: MonotonicInstant, requests: AsyncStream<StopReason>) {
        self.definition = definition
        self.context = context
        self.fence = fence
        self.started = started
        self.requests = requests
        mailed = definition.mailTo.isEmpty ? nil : MailedOutput()
    }

    mutating func stopWatching() {
        endWatch?.finish()
        endWatch = nil
    }
}

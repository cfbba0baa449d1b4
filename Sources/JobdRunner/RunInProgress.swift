import JobdConfig
import JobdTimers

/// What ``JobRunner`` holds of one run while it performs its ``RunLifecycle``'s actions: the
/// things those actions made (the account, the spawn configuration, the cgroup, `PrivateTmp=`'s
/// directories), which the lifecycle, a pure value, only knows by whether they exist. A class:
/// the run's task holds one reference across its suspensions, not the whole of it in its frame.
final class RunInProgress {
    /// An event for the run from elsewhere (the driver's reports, its watch, its stop timeout);
    /// `acknowledge` is called once its actions are performed (the process's first output waits
    /// for its `run.start`).
    struct Posted: Sendable {
        var event: RunLifecycle.Event
        var acknowledge: (@Sendable () -> Void)?
        /// An adopted run's end: how it ended is the keeper's (``AdoptedProcess/end``), asked in
        /// the run's task; the event is then `exited` with it.
        var termination: (@Sendable () async -> RunTermination)?
    }

    let definition: JobDefinition
    /// What decides the run's steps; here, not in the run's frame (issue 39).
    var lifecycle: RunLifecycle
    /// The actions of the last event (or of the start) not yet performed, first first.
    var actions: [RunLifecycle.Action] = []
    /// The action that waits, being performed.
    @OutOfLine var suspending: RunLifecycle.Action? = nil
    /// The events that came of the actions performed, not yet handed to the lifecycle.
    var next: [RunLifecycle.Event] = []
    /// The posted event's `acknowledge`, called once every action that came of it is performed.
    var acknowledge: (@Sendable () -> Void)?
    let context: [String: String]
    let fence: RunFence?
    let started: MonotonicInstant
    /// Where the run's events are posted, from any thread.
    let inbox: AsyncStream<Posted>.Continuation
    /// Stop requests, `RuntimeMaxSec=` and OOM kills, posted to `inbox` beside the process.
    let watch: RunWatch
    var account: Account?
    @OutOfLine var configuration: SpawnConfiguration? = nil
    var cgroup: RunCgroup?
    var privateTmp: PrivateTmp?
    /// What the run writes, kept for `MailTo=` (cron's `MAILTO`) only.
    let mailed: MailedOutput?
    /// The SIGKILL's delay, fixed when SIGTERM went (jobd's own stop may have shortened it).
    var stopGrace = TimeSpan.infinity
    /// The stop's timeout, once armed; cancelled when the run is over.
    var stopTimeout: RunDriverWatch?
    @OutOfLine var outcome: RunOutcome? = nil
    @OutOfLine var mail: RunMail? = nil
    /// The process an earlier jobd started and handed over, for a run this jobd adopts (issue 36):
    /// nothing is prepared or spawned for it, and its start is logged as `run.adopt`.
    @OutOfLine var adopted: AdoptedProcess? = nil

    init(
        definition: JobDefinition, lifecycle: RunLifecycle, context: [String: String], fence: RunFence?, started: MonotonicInstant,
        inbox: AsyncStream<Posted>.Continuation
    ) {
        self.definition = definition
        self.lifecycle = lifecycle
        self.context = context
        self.fence = fence
        self.started = started
        self.inbox = inbox
        watch = RunWatch { reason in inbox.yield(Posted(event: .stopRequested(reason))) }
        mailed = definition.mailTo.isEmpty ? nil : MailedOutput()
    }

    /// Each line the run writes, for `MailTo=`; `nil` without it.
    var mailedLine: (@Sendable (String) -> Void)? {
        mailed.map { output in { @Sendable line in output.append(line) } }
    }

    /// What the driver reports of the run's process, posted to `inbox`.
    var reports: RunProcessReports {
        let (inbox, adopted) = (inbox, adopted)
        return RunProcessReports(started: { pid, proceed in
            inbox.yield(Posted(event: .spawned(pid: pid), acknowledge: proceed))
        }, ended: { result in
            switch result {
            case .success(let termination): inbox.yield(Posted(event: .exited(termination), termination: adopted?.end))
            case .failure(let error): inbox.yield(Posted(event: .spawnFailed(error.description)))
            }
        })
    }

    /// Events for the lifecycle, handed to it after those already waiting.
    func post(_ events: [RunLifecycle.Event]) {
        next += events
    }

    /// Takes a posted event; returns the adopted run's question of how it ended, to be asked first.
    func receive(_ posted: Posted) -> (@Sendable () async -> RunTermination)? {
        acknowledge = posted.acknowledge
        guard posted.termination == nil else { return posted.termination }
        next.append(posted.event)
        return nil
    }

    /// The run is over: its watch and its timers go, and nothing more is posted.
    func close() {
        watch.end()
        stopTimeout?.cancel()
        stopTimeout = nil
        inbox.finish()
    }
}

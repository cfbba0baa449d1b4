import Glibc
import JobdCalendar
import JobdConfig
import JobdControl
import JobdRunner
import JobdScheduler
import JobdTimers

/// What a job's status is made of, read from the loop once for all the jobs of a list: each
/// read of the loop's state for each job cost more than making the status (issue 19). One
/// wall-clock reading for all, so that jobs due at the same instant show the same time. The
/// tables are copies (copy-on-write: taken at once) and hold no owner, so statuses can be made
/// on other threads.
struct StatusView: Sendable {
    let histories: JobHistories
    let broken: [String: JobdConfiguration.BrokenJob]
    let admission: RunAdmission
    let lastNodes: [String: String]
    let launcher: any RunLauncher
    let wallClock: @Sendable (MonotonicInstant) -> Int64

    init(
        histories: JobHistories, broken: [String: JobdConfiguration.BrokenJob], admission: RunAdmission,
        lastNodes: [String: String], launcher: any RunLauncher, clocks: Scheduler.Clocks
    ) {
        self.histories = histories
        self.broken = broken
        self.admission = admission
        self.lastNodes = lastNodes
        self.launcher = launcher
        let wallNow = clocks.realtime().microseconds, monotonicNow = clocks.monotonic()
        wallClock = { wallNow + $0.duration(since: monotonicNow).nanosecondsSaturated / 1_000 }
    }

    /// The status of `name`, whose owner (if it has one) says `owner`; `brief`, without its
    /// file, command, description and runs in flight (empty or `nil`).
    func status(
        of name: String, owner: OwnerFacts?, triggerTexts: TriggerTexts, brief: Bool = false, for peer: ControlPeer? = nil
    ) -> JobStatus? {
        let broken = self.broken[name]
        guard owner != nil || broken != nil else { return nil }
        // A reader sees a job's command, description and errors (which quote the file's lines)
        // only if it could read the job file itself: a 0600 file stays private.
        let hidden = peer.map { !$0.mayRead(owner?.definition.path ?? broken?.path ?? "") } ?? false
        let history = histories[name] ?? JobHistory()
        let definition = owner?.definition
        let inFlight = admission.runsInFlight(of: name)
        var status = JobStatus(
            name: name, file: brief ? "" : definition?.path ?? broken?.path ?? "", description: brief ? nil : definition?.description,
            command: brief ? "" : definition?.command.text ?? "", triggers: definition.map { triggerTexts.texts(of: $0.triggers) } ?? [],
            nextElapseUSec: owner?.next,
            lastTriggerUSec: history.lastTrigger.map(wallClock),
            // The wall clock's times as they were read, which is also all a history an earlier
            // jobd kept has: the same before a restart and after it.
            lastStartUSec: history.lastStartRealtime?.microseconds ?? history.lastStart.map(wallClock),
            lastFinishUSec: history.lastFinishRealtime?.microseconds ?? history.lastFinish.map(wallClock),
            lastOutcome: history.lastRun?.termination.description, running: inFlight.count,
            owner: owner?.id ?? 0, generation: owner?.generation ?? 0)
        status.lastResult = history.lastRun?.result.rawValue
        status.lastExitStatus = history.lastRun?.termination.exitStatus
        status.lastDurationUSec = history.lastRun?.duration.microseconds
        status.lastRunID = history.lastRun?.invocationID
        status.lastStartCause = history.lastStartCause
        status.lastNode = lastNodes[name]
        let runs = brief ? [] : inFlight.map { run in
            JobStatus.RunInFlight(
                runID: run.request.runID, invocationID: run.request.invocationID,
                pid: launcher.pid(of: run.request.runID), startedUSec: wallClock(run.startedAt),
                cause: run.request.cause.rawValue)
        }
        status.runs = runs.isEmpty ? nil : runs
        status.retryUSec = admission.pendingRetry(of: name).map { wallClock($0.at) }
        status.errors = broken?.errors.map(\.description)
        status.exposureTenths = definition.map(SecurityExposure.exposureTenths(of:))
        if hidden {
            let file = owner?.definition.path ?? broken?.path ?? name
            if !brief { status.command = "(not shown: you cannot read \(file))" }
            status.description = nil
            if status.errors != nil {
                status.errors = ["\(file): error: the file has errors (not shown: you cannot read it; jobctl check as root shows them)"]
            }
        }
        status.disabled = admission.disabled.contains(name) ? true : nil
        return status
    }

    /// What a status needs of a job's owner, read on the loop: the owner itself stays there (its
    /// timer's deadline changes on the loop, and only the loop may let it go, since its `deinit`
    /// invalidates the timer and logs the release), so statuses can be made on other threads.
    struct OwnerFacts: Sendable {
        let definition: JobDefinition
        let id: UInt64
        let generation: UInt64
        /// The next elapse, wall-clock.
        let next: Int64?

        init(_ owner: JobOwner, wallClock: (MonotonicInstant) -> Int64) {
            definition = owner.definition
            id = owner.id
            generation = owner.generation
            next = owner.timer.deadline.map(wallClock)
        }
    }

    /// The text of each trigger list, made once per reply for every job that shares the list. Jobs
    /// that write the same trigger share one list (the read's `TriggerInterner`), and making the
    /// texts again for each was a third of jobd's time for a list of 10,000 jobs (issue 19). A list
    /// is known by its storage's address: every definition holding it is held by the reply's
    /// sources while the reply is made, so no other list can take that address meanwhile.
    final class TriggerTexts {
        private var texts: [UnsafeRawPointer: [String]] = [:]

        func texts(of triggers: [Trigger]) -> [String] {
            guard let key = triggers.withUnsafeBufferPointer({ $0.baseAddress.map(UnsafeRawPointer.init) }) else { return [] }
            if let known = texts[key] { return known }
            let made = triggers.map(\.description)
            texts[key] = made
            return made
        }
    }
}

extension StatusView {
    /// The status of `name`, whose owner (if it has one) is `owner`, with each check of its
    /// exposure (for `jobctl security`) unless `peer` could not read the job file.
    func status(of name: String, owner: JobOwner?, for peer: ControlPeer?) -> JobStatus? {
        guard var status = status(of: name, owner: owner.map { OwnerFacts($0, wallClock: wallClock) }, triggerTexts: TriggerTexts(), for: peer)
        else { return nil }
        if let definition = owner?.definition {
            status.persistent = definition.persistent
            status.overlap = definition.overlap.rawValue
        }
        if let definition = owner?.definition, peer.map({ $0.mayRead(definition.path) }) ?? true {
            status.security = SecurityExposure(definition).checks.map(SecurityCheck.init)
            status.conditions = definition.conditions.isEmpty ? nil : definition.conditions.map(\.description)
        }
        return status
    }
}

extension DaemonStatus {
    /// jobd's status as `scheduler`, the runs and `generation` have it, as `peer` may see it.
    init(
        scheduler: Scheduler, running: Int, generation: Generation, lastReload: ReloadReport?, instance: String,
        startedRealtimeUSec: Int64, for peer: ControlPeer?
    ) {
        self.init(
            pid: getpid(), instance: instance, generation: scheduler.generation.number,
            startedRealtimeUSec: startedRealtimeUSec, jobs: scheduler.generation.owners.count,
            liveOwners: JobOwner.liveCount, liveTimers: scheduler.queue.statistics.liveTimers,
            armedTimers: scheduler.queue.armedCount, runningJobs: running, lastReload: lastReload,
            retiredOwnersAlive: scheduler.leakDetector?.retiredAlive ?? 0, leakedOwners: scheduler.leakDetector?.leaked ?? 0)
        show(generation, to: peer)
    }

    /// Adds the files with errors of `generation`. For a reader (`peer`), the errors of files it
    /// could not read itself are not shown, in the broken files or the last reload's errors (they
    /// quote the files' lines).
    mutating func show(_ generation: Generation, to peer: ControlPeer?) {
        let shown = { (error: ConfigError) in
            peer.map { $0.mayRead(error.file) } ?? true
                ? error.description : "\(error.file): error: not shown (you cannot read the file; jobctl check as root shows it)"
        }
        let brokenFiles = generation.settingsErrors.prefix(1).map(shown) + generation.broken.values.sorted { $0.name < $1.name }.map { shown($0.errors[0]) }
        self.brokenFiles = brokenFiles.isEmpty ? nil : brokenFiles
        if let peer, peer.level != .full, var reload = lastReload {
            // The report keeps only the errors' text: a reader sees their count.
            if !reload.errors.isEmpty { reload.errors = ["\(reload.errors.count) error(s): see the broken files above"] }
            lastReload = reload
        }
    }
}

extension SecurityCheck {
    /// A check of a job's exposure as the wire carries it to jobctl (which reads no job file).
    init(_ check: SecurityExposure.Check) {
        self.init(id: check.id, description: check.description, weight: check.weight, range: check.range, badness: check.badness,
                  exposureTenths: check.exposureTenths)
    }
}

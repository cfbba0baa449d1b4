package import Glibc
package import JobdCalendar
package import JobdConfig
package import JobdTimers

/// Every decision about runs, and the only record of them: which runs are in flight, which wait
/// (for their job's run in flight under `Overlap=queue`/`replace`, or for a slot under
/// `MaxConcurrentRuns=`), which failed runs wait to be retried (`Restart=`), and which jobs a run's
/// outcome starts (`OnFailure=`, `OnSuccess=`).
///
/// A pure state machine: each event (a trigger fell due, `jobctl run`, a run ended, a retry is due, a
/// reload, a stop, shutdown) returns the actions to perform, in order. It reads no clock (the
/// caller passes the time), starts no process and logs nothing; the daemon's main loop performs
/// its actions, and tests drive it with tables.
package struct RunAdmission: Sendable {
    /// What the caller is to do.
    package enum Action: Sendable, Hashable {
        /// Start the run now (it is in flight from now on).
        case start(RunRequest)
        /// The run is not started: logged as `run.skip` with the reason.
        case skip(RunRequest, reason: String)
        /// The run waits: logged as `run.wait`.
        case wait(RunRequest, reason: WaitReason)
        /// Stop every run in flight of the job.
        case stop(job: String, reason: StopReason)
        /// Stop every run in flight, and any that starts from now on.
        case stopAll(StopReason)
        /// A run that waited will never start (its job was removed, stopped, or jobd is stopping).
        case drop(RunRequest, reason: String)
        /// A failed run will be retried at `at`, `delay` after it ended: logged as `run.retry`.
        case retry(RunRequest, at: MonotonicInstant, delay: TimeSpan)
        /// A pending retry will not happen.
        case cancelRetry(RunRequest, reason: String)
    }

    package enum WaitReason: Sendable, Hashable {
        /// For the job's run in flight to end (`Overlap=queue`); with `replacing`, it is being stopped (`Overlap=replace`).
        case overlap(replacing: Bool)
        /// For a free slot under `MaxConcurrentRuns=`.
        case slot
        /// For one of the user's own runs to end, under `UserRunsMax=`: the user is her uid
        /// (``JobDefinition/owningUID``), so a name re-created for another account shares nothing.
        case userSlot(uid: uid_t)
    }

    /// How long a chain of `OnFailure=`/`OnSuccess=` may grow: the first job and at most 7 started by it in turn.
    package static let maxChain = 8

    private struct JobRuns: Sendable {
        var inFlight = JobRunsInFlight()
        /// The run waiting for the runs in flight to end. Out of line, as the retry: this table has
        /// an entry for every job with a run in flight, and most have neither (issue 39).
        @OutOfLine var queued: RunRequest? = nil
        /// The retry of a failed run, and when it is due.
        @OutOfLine var retry: (request: RunRequest, at: MonotonicInstant)? = nil

        var isIdle: Bool { inFlight.isEmpty && queued == nil && retry == nil }
    }

    /// The configuration runs are decided by, as the last reload gave it.
    package private(set) var generation = Generation(jobs: [])
    package private(set) var maxConcurrentRuns: Int?
    /// The most runs jobd's descriptors allow at once (``runsInFlightCeiling(descriptorLimit:)``).
    package let runsInFlightCeiling: Int?
    private var jobs: [String: JobRuns] = [:]
    /// The jobs whose entry holds a pending retry, kept by ``setRetry(_:of:)``: ``nextRetry`` and
    /// ``retriesDue(now:)`` look among these, not along every job with a run in flight.
    private var retrying: Set<String> = []
    /// Runs waiting for a slot, in the order they fell due: one queue per user's uid (`nil`: the system's
    /// jobs), so that admitting a run looks at the head of each queue, never along one.
    private var slotWaiting: [uid_t?: WaitingQueue] = [:]
    /// How many runs of each job wait for a slot: ``isActive(_:)`` and `JobWaitingRunsMax=` ask this.
    private var waitingByJob: [String: Int] = [:]
    /// Runs in flight, in all and of each user's own jobs (the uid recorded at their start: a run
    /// of an account deleted and re-created under its name still counts for the old uid).
    private var runningCount = 0
    private var runningByUID: [uid_t: Int] = [:]
    private var uidOfRun: [UInt64: uid_t] = [:]
    /// Jobs whose triggers start no runs (`jobctl disable`).
    package private(set) var disabled: Set<String> = []
    private var nextRunID: UInt64 = 1
    private var waitingSequence: UInt64 = 0
    private let makeInvocationID: @Sendable () -> String
    package private(set) var isStopping = false

    /// `invocationIDs` makes each run's `JOBD_RUN_ID`: random by default, predictable in tests.
    /// `runsInFlightCeiling` bounds the runs in flight below `MaxConcurrentRuns=` where jobd's
    /// descriptors would not suffice (`nil`: no bound).
    package init(
        maxConcurrentRuns: Int? = nil, runsInFlightCeiling: Int? = nil,
        invocationIDs: @escaping @Sendable () -> String = RunRequest.randomInvocationID
    ) {
        self.maxConcurrentRuns = maxConcurrentRuns
        self.runsInFlightCeiling = runsInFlightCeiling
        self.makeInvocationID = invocationIDs
    }

    // MARK: Queries

    /// Runs in flight.
    package var running: Int { runningCount }
    /// Runs waiting for a free slot.
    package var waitingForSlot: Int { slotWaiting.values.reduce(0) { $0 + $1.count } }
    /// Runs of the own jobs of the user with `uid` waiting for a slot.
    package func waiting(ofUID uid: uid_t) -> Int { slotWaiting[uid]?.count ?? 0 }
    /// The job's definition, as the last reload gave it.
    package func definition(of job: String) -> JobDefinition? { generation.definition(of: job) }
    /// A run in flight, and when it started.
    package struct RunInFlight: Sendable, Hashable {
        package var request: RunRequest
        package var startedAt: MonotonicInstant
    }

    /// The job's runs in flight, oldest first.
    package func runsInFlight(of job: String) -> [RunInFlight] {
        (jobs[job]?.inFlight.values).map { $0.sorted { $0.request.runID < $1.request.runID } } ?? []
    }
    /// The run `runID` of `job`, while it is in flight.
    package func runInFlight(of job: String, runID: UInt64) -> RunInFlight? { jobs[job]?.inFlight[runID] }
    /// Every run in flight, by its number.
    package var runsInFlightByID: [UInt64: RunInFlight] {
        var runs: [UInt64: RunInFlight] = [:]
        for job in jobs.values {
            for run in job.inFlight.values { runs[run.request.runID] = run }
        }
        return runs
    }
    /// Whether a run of the job is in flight or waits for a slot: `Overlap=` and `OnUnitInactiveSec=` ask this.
    package func isActive(_ job: String) -> Bool {
        !(jobs[job]?.inFlight.isEmpty ?? true) || waitingByJob[job] != nil
    }
    /// The jobs ``isActive(_:)`` says so of: what the scheduler arms `OnUnitInactiveSec=` by.
    package var activeJobs: Set<String> {
        Set(jobs.compactMap { $0.value.inFlight.isEmpty ? nil : $0.key }).union(waitingByJob.keys)
    }
    package func queuedRun(of job: String) -> RunRequest? { jobs[job]?.queued }
    package func pendingRetry(of job: String) -> (request: RunRequest, at: MonotonicInstant)? { jobs[job]?.retry }
    /// The earliest pending retry: the caller wakes up then and calls ``retriesDue(now:)``.
    package var nextRetry: MonotonicInstant? { retrying.compactMap { jobs[$0]?.retry?.at }.min() }

    // MARK: Events

    /// The jobs and `MaxConcurrentRuns=`, at start and after each reload. A waiting run or retry
    /// of a job that is gone is dropped; a raised limit starts waiting runs at once.
    package mutating func configure(_ generation: Generation, now: MonotonicInstant) -> [Action] {
        self.generation = generation
        self.maxConcurrentRuns = generation.settings.maxConcurrentRuns
        var actions: [Action] = []
        for (job, runs) in jobs where generation.definition(of: job) == nil {
            actions += forget(job, runs: runs, reason: "job-removed")
        }
        actions += removeWaiting { generation.definition(of: $0.job) == nil }.map { .drop($0, reason: "job-removed") }
        return actions + startWaitingRuns(now: now)
    }

    /// ``configure(_:now:)`` with `definitions` alone, under `maxConcurrentRuns`.
    package mutating func configure(_ definitions: [JobDefinition], maxConcurrentRuns: Int?, now: MonotonicInstant) -> [Action] {
        configure(Generation(jobs: definitions, settings: DaemonSettings(maxConcurrentRuns: maxConcurrentRuns)), now: now)
    }

    /// One of the job's triggers fell due. A disabled job's trigger is skipped.
    /// `elapse` is the calendar elapse a `RunOn=one-node` job fell due for (see ``RunRequest/scheduledElapse``).
    package mutating func due(job: String, now: MonotonicInstant, elapse: RealtimeInstant? = nil) -> [Action] {
        var request = makeRequest(job: job, cause: .timer, now: now)
        request.scheduledElapse = elapse
        guard !disabled.contains(job) else { return [.skip(request, reason: "disabled")] }
        return ask(request, now: now)
    }

    /// `jobctl disable` and `enable`: a disabled job's triggers start nothing, and its pending retry
    /// is dropped; runs in flight go on, and `jobctl run` or another job's outcome still start it.
    package mutating func setDisabled(_ job: String, _ isDisabled: Bool) -> [Action] {
        guard isDisabled else {
            disabled.remove(job)
            return []
        }
        disabled.insert(job)
        guard let retry = jobs[job]?.retry else { return [] }
        setRetry(nil, of: job)
        dropIfIdle(job)
        return [.cancelRetry(retry.request, reason: "disabled")]
    }

    /// What `jobctl run` became: its request (to follow it by its id), what became of it (what
    /// the client is answered), and the actions to perform.
    package struct ManualRun: Sendable {
        package enum Fate: Sendable, Hashable {
            case started
            /// It waits, for the job's run in flight (`Overlap=`) or for a slot.
            case queued
            case skipped(reason: String)
        }

        package var request: RunRequest
        package var fate: Fate
        package var actions: [Action]
    }

    /// `jobctl run`.
    package mutating func manualRun(job: String, now: MonotonicInstant) -> ManualRun {
        let request = makeRequest(job: job, cause: .manual, now: now)
        let actions = ask(request, now: now)
        var fate = ManualRun.Fate.skipped(reason: "no-such-job")
        for action in actions {
            switch action {
            case .start(request): fate = .started
            case .wait(request, _): fate = .queued
            case .skip(request, let reason): fate = .skipped(reason: reason)
            default: continue
            }
            break
        }
        return ManualRun(request: request, fate: fate, actions: actions)
    }

    /// What a run's end became: the actions to perform, and what the clients following the run
    /// (`jobctl run --wait --follow-retries`) hear of it.
    package struct Ended: Sendable {
        /// The retry the run's failure was given: the request, its delay from the end, and the
        /// number of retries `Restart=` allows.
        package struct Retry: Sendable, Hashable {
            package var request: RunRequest
            package var delay: TimeSpan
            package var limit: UInt64
        }

        package var actions: [Action] = []
        package var retry: Retry?
        /// The runs the end started or made wait: its `OnFailure=`/`OnSuccess=` jobs, the queued run
        /// of its job, runs that waited for a slot.
        package var started: [RunRequest] {
            actions.compactMap {
                switch $0 {
                case .start(let request), .wait(let request, _): request
                default: nil
                }
            }
        }
    }

    /// A run ended: retry it, or start the jobs its outcome names, then whatever waited for it.
    package mutating func runEnded(_ end: RunOutcome, now: MonotonicInstant) -> Ended {
        guard let request = leave(job: end.job, runID: end.runID) else { return Ended() }
        defer { dropIfIdle(end.job) }
        guard !isStopping else { return Ended() }
        var retryGiven: Ended.Retry?
        var actions: [Action] = []
        let definition = generation.definition(of: end.job)
        let queuedStarts = jobs[end.job]?.queued != nil && jobs[end.job]?.inFlight.isEmpty == true
        let retries = definition.map {
            $0.restart.condition.retries(end.result) && request.attempt < $0.restart.limit
                && !$0.restart.prevents(exitCode: end.termination.exitCode, exitStatus: end.termination.exitStatus)
        } ?? false
        if let definition, retries, !queuedStarts {
            let attempt = request.attempt + 1
            let delay = definition.restart.delay(beforeRetry: attempt)
            let at = now + delay.duration
            let retry = RunRequest(runID: takeRunID(), invocationID: makeInvocationID(), job: end.job, cause: .retry,
                                   attempt: attempt, triggeredBy: request.triggeredBy, dueAt: at,
                                   scheduledElapse: request.scheduledElapse, owningUID: definition.owningUID)
            if let superseded = jobs[end.job]?.retry {
                actions.append(.cancelRetry(superseded.request, reason: "superseded"))
            }
            setRetry((retry, at), of: end.job)
            actions.append(.retry(retry, at: at, delay: delay))
            retryGiven = Ended.Retry(request: retry, delay: delay, limit: definition.restart.limit)
        } else if let definition, !retries {
            // A failure is final once no retry is left (a queued run that starts now takes a retry's place).
            actions += followUps(of: end, definition: definition, chain: (request.triggeredBy?.chain ?? []) + [end.job], now: now)
        }
        if queuedStarts, let queued = jobs[end.job]?.queued {
            jobs[end.job]?.queued = nil
            actions += admit(queued, now: now)
        }
        return Ended(actions: actions + startWaitingRuns(now: now), retry: retryGiven)
    }

    /// The `OnFailure=`/`OnSuccess=` runs that `end`, final, starts; `chain` is the jobs that
    /// started one another up to it, itself last.
    private mutating func followUps(of end: RunOutcome, definition: JobDefinition, chain: [String], now: MonotonicInstant) -> [Action] {
        let targets = end.result.isFailure ? definition.onFailure : end.result == .success ? definition.onSuccess : []
        let cause: RunRequest.Cause = end.result.isFailure ? .onFailure : .onSuccess
        return starts(targets, cause: cause, by: TriggeringRun(
            job: end.job, invocationID: end.invocationID, result: end.result, exitCode: end.termination.exitCode,
            exitStatus: end.termination.exitStatus, chain: chain), now: now)
    }

    /// The runs of `targets` that `trigger` starts, unless they are on its chain already or the chain is too long.
    private mutating func starts(_ targets: [String], cause: RunRequest.Cause, by trigger: TriggeringRun, now: MonotonicInstant) -> [Action] {
        let chain = trigger.chain
        var actions: [Action] = []
        for target in targets {
            let started = makeRequest(job: target, cause: cause, now: now, triggeredBy: trigger)
            if chain.contains(target) {
                actions.append(.skip(started, reason: "trigger-cycle"))
            } else if chain.count >= Self.maxChain {
                actions.append(.skip(started, reason: "trigger-chain-too-long"))
            } else {
                actions += ask(started, now: now)
            }
        }
        return actions
    }

    /// A run an earlier jobd had in flight and never recorded the end of, found at this jobd's
    /// start (`end` is ``RunResult/abandoned``): final at once, with no `Restart=` retry, since
    /// nobody knows whether it did its work; its job's `OnFailure=` jobs start. Nothing of a job
    /// that is gone.
    package mutating func abandoned(_ end: RunOutcome, now: MonotonicInstant) -> [Action] {
        guard !isStopping, let definition = generation.definition(of: end.job) else { return [] }
        return followUps(of: end, definition: definition, chain: [end.job], now: now)
    }

    /// A run an earlier jobd handed over (or left in flight when it was killed) whose process this
    /// jobd follows (issue 36): in flight from `now`, under its own `JOBD_RUN_ID`, counted for its
    /// user and against `MaxConcurrentRuns=` as any run (it may exceed it: it already runs). `nil`
    /// for a job that is gone or while jobd stops.
    package mutating func adopt(
        job: String, invocationID: String, cause: RunRequest.Cause, attempt: UInt64 = 0, scheduledElapse: RealtimeInstant? = nil,
        now: MonotonicInstant
    ) -> RunRequest? {
        guard !isStopping, let definition = generation.definition(of: job) else { return nil }
        let request = RunRequest(runID: takeRunID(), invocationID: invocationID, job: job, cause: cause, attempt: attempt, dueAt: now,
                                 scheduledElapse: scheduledElapse, owningUID: definition.owningUID)
        enter(request, now: now)
        return request
    }

    /// `job` fell overdue (``SuccessDeadlines``): its `OnFailure=` jobs start, as after a failed
    /// run, with `JOBD_RESULT=overdue`; `lastRun` is its last run's `JOBD_RUN_ID`, if it had one.
    package mutating func overdue(job: String, lastRun: String?, now: MonotonicInstant) -> [Action] {
        guard !isStopping, let definition = generation.definition(of: job) else { return [] }
        let alarm = TriggeringRun(job: job, invocationID: lastRun ?? "", result: nil, exitCode: "", exitStatus: "", chain: [job])
        return starts(definition.onFailure, cause: .onFailure, by: alarm, now: now)
    }

    /// A run that was started did not start after all: its fleet elapse was claimed by another node,
    /// or could not be claimed. It leaves the runs in flight without a result (no retry, no
    /// `OnFailure=`), and what waited for it goes on.
    package mutating func startDeclined(job: String, runID: UInt64, reason: String, now: MonotonicInstant) -> [Action] {
        guard let request = leave(job: job, runID: runID) else { return [] }
        defer { dropIfIdle(job) }
        var actions: [Action] = [.skip(request, reason: reason)]
        guard !isStopping else { return actions }
        if let queued = jobs[job]?.queued, jobs[job]?.inFlight.isEmpty == true {
            jobs[job]?.queued = nil
            actions += admit(queued, now: now)
        }
        return actions + startWaitingRuns(now: now)
    }

    /// Another node's run of a fleet elapse was recorded `lost` by this node: under `Restart=` that
    /// retries `lost`, this node retries it (as the next attempt of the same elapse, which it must
    /// claim in turn). A lost run starts no `OnFailure=` job: its node is gone, not its outcome known.
    package mutating func lostElsewhere(job: String, elapse: RealtimeInstant, attempt: UInt64, now: MonotonicInstant) -> [Action] {
        guard !isStopping, let definition = generation.definition(of: job), definition.restart.condition.retries(.lost),
              attempt < definition.restart.limit else { return [] }
        let delay = definition.restart.delay(beforeRetry: attempt + 1)
        let at = now + delay.duration
        let retry = RunRequest(runID: takeRunID(), invocationID: makeInvocationID(), job: job, cause: .retry,
                               attempt: attempt + 1, dueAt: at, scheduledElapse: elapse, owningUID: definition.owningUID)
        var actions: [Action] = []
        if let superseded = jobs[job]?.retry {
            actions.append(.cancelRetry(superseded.request, reason: "superseded"))
        }
        setRetry((retry, at), of: job)
        return actions + [.retry(retry, at: at, delay: delay)]
    }

    /// Starts (or lets wait, under `Overlap=`) every retry that is due.
    package mutating func retriesDue(now: MonotonicInstant) -> [Action] {
        var actions: [Action] = []
        for job in retrying.sorted() {
            guard let retry = jobs[job]?.retry, retry.at <= now else { continue }
            setRetry(nil, of: job)
            dropIfIdle(job)
            actions += ask(retry.request, now: now)
        }
        return actions
    }

    /// `jobctl stop` (or a reload that revoked the job, with `reason` ``StopReason/revoked``): the
    /// job's runs in flight are stopped; its waiting run and pending retry dropped.
    package mutating func stop(job: String, reason: StopReason = .requested) -> [Action] {
        var actions: [Action] = []
        if let runs = jobs[job] {
            if !runs.inFlight.isEmpty { actions.append(.stop(job: job, reason: reason)) }
            actions += forget(job, runs: runs, reason: "stopped")
        }
        return actions + removeWaiting { $0.job == job }.map { .drop($0, reason: "stopped") }
    }

    /// jobd is stopping: nothing starts any more, and every run in flight is stopped.
    package mutating func shutdown() -> [Action] {
        guard !isStopping else { return [] }
        isStopping = true
        var actions: [Action] = []
        for (job, runs) in jobs.sorted(by: { $0.key < $1.key }) {
            actions += forget(job, runs: runs, reason: "stopping")
        }
        actions += removeWaiting { _ in true }.map { .drop($0, reason: "stopping") }
        if running > 0 { actions.append(.stopAll(.shutdown)) }
        return actions
    }

    // MARK: Decisions

    private mutating func takeRunID() -> UInt64 {
        defer { nextRunID += 1 }
        return nextRunID
    }

    private mutating func makeRequest(
        job: String, cause: RunRequest.Cause, now: MonotonicInstant, triggeredBy: TriggeringRun? = nil
    ) -> RunRequest {
        RunRequest(runID: takeRunID(), invocationID: makeInvocationID(), job: job, cause: cause, triggeredBy: triggeredBy, dueAt: now,
                   owningUID: generation.definition(of: job)?.owningUID)
    }

    /// A run is asked for: `Overlap=` decides whether it starts, waits or is skipped.
    private mutating func ask(_ request: RunRequest, now: MonotonicInstant) -> [Action] {
        guard !isStopping else { return [.skip(request, reason: "stopping")] }
        guard let definition = generation.definition(of: request.job) else { return [.skip(request, reason: "no-such-job")] }
        var actions: [Action] = []
        if request.cause != .retry, let pending = jobs[request.job]?.retry {
            // A new run takes the place of the retry that was still to come.
            setRetry(nil, of: request.job)
            actions.append(.cancelRetry(pending.request, reason: "superseded"))
        }
        if isActive(request.job) {
            switch definition.overlap {
            case .skip:
                return actions + [.skip(request, reason: "overlap")]
            case .queue, .replace:
                guard jobs[request.job]?.queued == nil else { return actions + [.skip(request, reason: "already-queued")] }
                jobs[request.job, default: JobRuns()].queued = request
                let replacing = definition.overlap == .replace
                actions.append(.wait(request, reason: .overlap(replacing: replacing)))
                if replacing, !(jobs[request.job]?.inFlight.isEmpty ?? true) {
                    actions.append(.stop(job: request.job, reason: .replaced))
                }
                return actions
            case .parallel:
                break
            }
        }
        return actions + admit(request, now: now)
    }

    /// The uid of the user whose own job `job` is, if it is one: recorded at load, so that budgets
    /// are by account, never by name (two names for one uid share one budget).
    private func owner(of job: String) -> uid_t? { generation.definition(of: job)?.owningUID }

    /// Runs in flight of the own jobs of the user with `uid`.
    package func running(ofUID uid: uid_t) -> Int { runningByUID[uid] ?? 0 }

    /// Why `request` cannot start now: no slot under `MaxConcurrentRuns=` (or jobd's descriptors), or none of its user's
    /// under `UserRunsMax=`; `nil` when it can.
    private func blocked(_ request: RunRequest) -> WaitReason? {
        if let slotLimit, running >= slotLimit { return .slot }
        if let uid = owner(of: request.job), isAtLimit(uid) { return .userSlot(uid: uid) }
        return nil
    }

    private func isAtLimit(_ uid: uid_t) -> Bool {
        generation.settings.userRunsMax.map { running(ofUID: uid) >= $0 } ?? false
    }

    /// Why `request` may not wait for a slot: its job's or its user's waiting runs are at
    /// `JobWaitingRunsMax=` or `UserWaitingRunsMax=` (the reason it is skipped with); `nil` when it may.
    private func waitRefused(_ request: RunRequest) -> String? {
        let settings = generation.settings
        if let limit = settings.jobWaitingRunsMax, waitingByJob[request.job, default: 0] >= limit { return "job-waiting-runs-max" }
        if let uid = owner(of: request.job), let limit = settings.userWaitingRunsMax, waiting(ofUID: uid) >= limit {
            return "user-waiting-runs-max"
        }
        return nil
    }

    /// The queue whose first run starts next: of the queues whose user is not at `UserRunsMax=`,
    /// the one whose first run fell due first; `nil` when no waiting run may start. Its work grows
    /// with the number of users waiting, not with the number of runs.
    private func nextStartable() -> (owner: uid_t?, order: WaitingQueue.Order)? {
        if let slotLimit, running >= slotLimit { return nil }
        var next: (owner: uid_t?, order: WaitingQueue.Order)?
        for (owner, queue) in slotWaiting {
            guard let first = queue.firstOrder, owner.map({ !isAtLimit($0) }) ?? true else { continue }
            if next.map({ first < $0.order }) ?? true { next = (owner, first) }
        }
        return next
    }

    /// Starts the run if a slot is free; otherwise it waits for one, in the order runs were asked
    /// for, unless its job or user has as many waiting as they may. A run that waits only for its
    /// user's own runs holds up no one else's.
    private mutating func admit(_ request: RunRequest, now: MonotonicInstant) -> [Action] {
        let reason = blocked(request)
        if reason == nil, nextStartable() == nil {
            enter(request, now: now)
            return [.start(request)]
        }
        if let refused = waitRefused(request) { return [.skip(request, reason: refused)] }
        waitingSequence += 1
        slotWaiting[owner(of: request.job), default: WaitingQueue()].insert(request, sequence: waitingSequence)
        waitingByJob[request.job, default: 0] += 1
        return [.wait(request, reason: reason ?? .slot)] + startWaitingRuns(now: now)
    }

    private mutating func startWaitingRuns(now: MonotonicInstant) -> [Action] {
        var actions: [Action] = []
        // Only runs of a user at their limit may be passed over; a full MaxConcurrentRuns= stops all.
        while let next = nextStartable(), let request = slotWaiting[next.owner]?.removeFirst() {
            if slotWaiting[next.owner]?.count == 0 { slotWaiting[next.owner] = nil }
            unwait(request.job)
            enter(request, now: now)
            actions.append(.start(request))
        }
        return actions
    }

    /// Removes the waiting runs that `matching` picks, in the order they fell due.
    private mutating func removeWaiting(_ matching: (RunRequest) -> Bool) -> [RunRequest] {
        var removed: [(order: WaitingQueue.Order, request: RunRequest)] = []
        for owner in Array(slotWaiting.keys) {
            removed += slotWaiting[owner]?.removeAll(where: matching) ?? []
            if slotWaiting[owner]?.count == 0 { slotWaiting[owner] = nil }
        }
        for entry in removed { unwait(entry.request.job) }
        return removed.sorted { $0.order < $1.order }.map(\.request)
    }

    private mutating func unwait(_ job: String) {
        waitingByJob[job, default: 1] -= 1
        if waitingByJob[job] == 0 { waitingByJob[job] = nil }
    }

    /// The run is in flight from `now`, counted for its user's `UserRunsMax=`.
    private mutating func enter(_ request: RunRequest, now: MonotonicInstant) {
        jobs[request.job, default: JobRuns()].inFlight.insert(RunInFlight(request: request, startedAt: now))
        runningCount += 1
        if let uid = owner(of: request.job) {
            runningByUID[uid, default: 0] += 1
            uidOfRun[request.runID] = uid
        }
    }

    /// The run is no longer in flight; `nil` when it was not.
    private mutating func leave(job: String, runID: UInt64) -> RunRequest? {
        guard let request = jobs[job]?.inFlight.remove(runID: runID)?.request else { return nil }
        runningCount -= 1
        if let uid = uidOfRun.removeValue(forKey: runID) {
            runningByUID[uid, default: 1] -= 1
            if runningByUID[uid] == 0 { runningByUID[uid] = nil }
        }
        // See dropIfIdle(_:): the same for the runs' users.
        if uidOfRun.isEmpty { uidOfRun = [:] }
        return request
    }

    /// Sets or clears `job`'s pending retry, and ``retrying`` with it: every change of a retry
    /// goes through here (an entry is dropped only when idle, so with no retry).
    private mutating func setRetry(_ retry: (request: RunRequest, at: MonotonicInstant)?, of job: String) {
        if let retry {
            jobs[job, default: JobRuns()].retry = retry
            retrying.insert(job)
        } else {
            jobs[job]?.retry = nil
            retrying.remove(job)
        }
    }

    /// Forgets `job`'s entry once it has nothing in flight, waiting or to retry. A dictionary keeps
    /// the capacity of its largest burst after its entries leave: once the last entry has gone,
    /// the table starts over empty, so that the trim after a burst can give that memory back.
    private mutating func dropIfIdle(_ job: String) {
        guard jobs[job]?.isIdle == true else { return }
        jobs[job] = nil
        if jobs.isEmpty { jobs = [:] }
    }

    /// The entries the per-run tables have room for: after a burst has drained, none (the memory
    /// the burst's tables took is free to give back).
    package var tableCapacity: Int { jobs.capacity + uidOfRun.capacity }

    /// Drops the job's waiting run and pending retry; its runs in flight stay until they end.
    private mutating func forget(_ job: String, runs: JobRuns, reason: String) -> [Action] {
        var actions: [Action] = []
        if let queued = runs.queued { actions.append(.drop(queued, reason: reason)) }
        if let retry = runs.retry { actions.append(.cancelRetry(retry.request, reason: reason)) }
        jobs[job]?.queued = nil
        setRetry(nil, of: job)
        dropIfIdle(job)
        return actions
    }
}

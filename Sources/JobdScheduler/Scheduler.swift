import Glibc
package import JobdCalendar
package import JobdConfig
import JobdLogging
package import JobdTimers
package import Logging

/// The scheduler's state and decisions: the running generation of job owners, each job's history,
/// and what to do when a job falls due or a run ends. It does no I/O of its own beyond arming
/// timers and logging; the daemon's main loop owns it and calls it from one task only.
package final class Scheduler {
    /// One configuration generation: the owners of every job it defines, by job name.
    package struct Generation {
        package var number: UInt64
        package var owners: [String: JobOwner]
    }

    /// What a reload changed.
    package struct ReloadSummary: Sendable, Equatable, CustomStringConvertible {
        package var generation: UInt64
        package var added: [String] = []
        package var changed: [String] = []
        package var removed: [String] = []
        package var kept: [String] = []

        package init(
            generation: UInt64, added: [String] = [], changed: [String] = [], removed: [String] = [],
            kept: [String] = []
        ) {
            self.generation = generation
            self.added = added
            self.changed = changed
            self.removed = removed
            self.kept = kept
        }

        package var description: String {
            "generation \(generation): \(added.count) added, \(changed.count) changed, "
                + "\(removed.count) removed, \(kept.count) kept"
        }
    }

    /// The wall clock, as calendar triggers need it: the system's, or a test's.
    package struct Clocks: Sendable {
        package var monotonic: @Sendable () -> MonotonicInstant
        package var realtime: @Sendable () -> RealtimeInstant
        /// `CLOCK_BOOTTIME` in microseconds, which tells a suspend from a clock that was set
        /// (``ClockOffsets``); `nil`, as tests' fake clocks have it, when it is not read.
        package var boottimeUSec: (@Sendable () -> Int64)?

        package init(
            monotonic: @escaping @Sendable () -> MonotonicInstant, realtime: @escaping @Sendable () -> RealtimeInstant,
            boottimeUSec: (@Sendable () -> Int64)? = nil
        ) {
            self.monotonic = monotonic
            self.realtime = realtime
            self.boottimeUSec = boottimeUSec
        }

        package static let system = Clocks(monotonic: { .now() }, realtime: { .now() }, boottimeUSec: {
            var now = timespec()
            clock_gettime(CLOCK_BOOTTIME, &now)
            return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
        })

        /// The three clocks read now.
        package var offsets: ClockOffsets {
            ClockOffsets(monotonic: monotonic(), realtime: realtime(), boottimeUSec: boottimeUSec?())
        }
    }

    package let queue: TimerQueue
    package let daemonStart: MonotonicInstant
    package let daemonStartRealtime: RealtimeInstant
    private let logger: Logger
    /// What every owner shares: the queue, ``events`` and where a due job goes.
    private let ownerContext: JobOwner.Context
    private let clocks: Clocks
    private let store: (any TriggerStore)?
    /// Where owners record their creation and release, and timers their invalidation.
    package let events: OwnerEventBatch
    /// The zone calendar triggers without one of their own are read in.
    package private(set) var zone: TimeZoneRules
    /// Jobs whose `Cron=@reboot` is still due: set at the first load of jobd's first start in a boot.
    private var rebootDue: Set<String> = []
    private var firstStartThisBoot: Bool
    package private(set) var generation = Generation(number: 0, owners: [:])
    /// The configuration the running generation's owners were made from (the one the run
    /// admission holds too), and its jobs' owner ids in the same order: a reload walks its jobs
    /// beside the new ones, so that an unchanged job costs an identity check (definitions are
    /// shared with the file cache) instead of a look-up of its owner.
    private var applied = JobdScheduler.Generation(jobs: [])
    private var appliedOwnerIDs: [UInt64] = []
    /// Watches retired owners; without one, retired owners are simply let go.
    package var leakDetector: LeakDetector?
    /// Called with every owner the scheduler creates: an extension point for observers (and for
    /// a test that plants a leak by holding on to one).
    package var ownerCreated: ((JobOwner) -> Void)?
    package private(set) var histories = JobHistories()
    /// Whether ``shutdown()`` let every owner go: a job without an owner was not removed then.
    private var isShutDown = false
    /// Jobs whose history changed since the last ``settle(isActive:)``, which arms their owners once.
    private var unsettled: Set<String> = []
    /// The calendar elapse each `RunOn=one-node` job's owner is armed for, by owner id: what a fleet
    /// claims when the owner's timer fires.
    private var scheduledElapses: [UInt64: RealtimeInstant] = [:]
    /// What makes `FixedRandomDelay=` and `RandomizedOffsetSec=` differ from machine to machine:
    /// the machine ID (``StableSpread``).
    package var hostSeed = ""

    package init(
        queue: TimerQueue, daemonStart: MonotonicInstant, logger: Logger,
        clocks: Clocks = .system, zone: TimeZoneRules = .utc, store: (any TriggerStore)? = nil,
        firstStartThisBoot: Bool = false, events: OwnerEventBatch? = nil,
        onDue: @escaping @Sendable (DueJob) -> Void
    ) {
        self.events = events ?? OwnerEventBatch(logger: logger)
        self.queue = queue
        self.daemonStart = daemonStart
        self.logger = logger
        self.ownerContext = JobOwner.Context(queue: queue, events: self.events, onDue: onDue)
        self.clocks = clocks
        self.zone = zone
        self.store = store
        self.firstStartThisBoot = firstStartThisBoot
        let now = clocks.monotonic()
        self.daemonStartRealtime = RealtimeInstant(
            microseconds: clocks.realtime().microseconds - Int64(now.duration(since: daemonStart).nanosecondsSaturated / 1_000))
    }

    /// Arms `owner` for its next elapse: the earliest trigger, then `RandomizedDelaySec=` (drawn
    /// anew each time) and `AccuracySec=` (rounded up to a multiple of it, so that timers with the
    /// same accuracy coalesce into one wake-up).
    /// `next`, when given, is the next elapse ``nextElapses(of:)`` worked out for it beforehand.
    /// `active`: whether a run of the job is in flight (or waits for a slot): `OnUnitInactiveSec=`
    /// waits for it to end. The run admission knows; the scheduler keeps no run state of its own.
    private func arm(_ owner: JobOwner, history: JobHistory, active: Bool, next: MonotonicInstant?? = nil) {
        let definition = owner.definition
        let elapse: MonotonicInstant?
        if let next {
            elapse = next
        } else {
            let wallClock = self.wallClock(of: definition, monotonic: clocks.monotonic(), realtime: clocks.realtime())
            if definition.runOn == .oneNode {
                scheduledElapses[owner.id] = NextElapse.calendarElapse(triggers: definition.triggers, history: history, wallClock: wallClock)
            }
            elapse = NextElapse.next(
                triggers: definition.triggers, daemonStart: daemonStart, history: history,
                running: active, wallClock: wallClock)
        }
        guard let due = elapse else {
            owner.arm(at: nil)
            return
        }
        let drawn = NextElapse.randomizedDelay(of: definition, hostSeed: hostSeed)
        let deadline = NextElapse.deadline(for: due, delay: drawn, accuracy: definition.accuracy)
        owner.arm(at: deadline)
    }

    /// The next elapse of each of `definitions` that a load makes a new owner for, worked out on
    /// every core before the owners are made one by one: at jobd's first load, where
    /// 100,000 calendar jobs spent 0.1 s in the calendar engine on one core (issue 19). `nil` for
    /// a job left to ``arm(_:history:next:)`` as before: one whose elapse depends on more than its
    /// triggers, its history and the clock (`Persistent=`'s stored trigger, `OnUnitInactiveSec=`'s
    /// run in flight, `RunOn=one-node`'s scheduled elapse), and every job of a smaller load or a reload.
    private func nextElapses(of definitions: [JobDefinition]) -> [MonotonicInstant??]? {
        guard armsInParallel, generation.number == 0, definitions.count >= Self.parallelArmingThreshold else { return nil }
        let (clocks, zone, daemonStart, daemonStartRealtime) = (clocks, zone, daemonStart, daemonStartRealtime)
        let (histories, rebootDue, hostSeed) = (histories, rebootDue, hostSeed)
        return definitions.concurrentMap(minimumChunk: 256) { definition -> MonotonicInstant?? in
            guard !definition.persistent, definition.runOn != .oneNode,
                  !definition.triggers.contains(where: { if case .unitInactive = $0 { true } else { false } }) else { return nil }
            let wallClock = Self.wallClock(
                of: definition, monotonic: clocks.monotonic(), realtime: clocks.realtime(), zone: zone,
                daemonStartRealtime: daemonStartRealtime, rebootPending: rebootDue.contains(definition.name), hostSeed: hostSeed)
            return .some(NextElapse.next(
                triggers: definition.triggers, daemonStart: daemonStart, history: histories[definition.name] ?? JobHistory(),
                wallClock: wallClock))
        }
    }

    /// The wall clock at one moment, for `definition`'s calendar triggers: with its share of
    /// `RandomizedOffsetSec=` and its `DeferReactivation=`.
    private static func wallClock(
        of definition: JobDefinition, monotonic: MonotonicInstant, realtime: RealtimeInstant, zone: TimeZoneRules,
        daemonStartRealtime: RealtimeInstant, rebootPending: Bool, hostSeed: String
    ) -> NextElapse.WallClock {
        NextElapse.WallClock(monotonic: monotonic, realtime: realtime, zone: zone, daemonStartRealtime: daemonStartRealtime,
                             rebootPending: rebootPending).applying(definition, hostSeed: hostSeed)
    }

    /// ``wallClock(of:monotonic:realtime:zone:daemonStartRealtime:rebootPending:hostSeed:)`` of
    /// this scheduler now; for `CatchUp=none`, with the last set of the wall clock as the
    /// earliest slot it may serve.
    private func wallClock(of definition: JobDefinition, monotonic: MonotonicInstant, realtime: RealtimeInstant) -> NextElapse.WallClock {
        var wallClock = Self.wallClock(of: definition, monotonic: monotonic, realtime: realtime, zone: zone,
                                       daemonStartRealtime: daemonStartRealtime, rebootPending: rebootDue.contains(definition.name),
                                       hostSeed: hostSeed)
        if definition.timing.catchUp == CatchUpPolicy.none { wallClock.notBefore = wallClockSetAt }
        return wallClock
    }

    /// Loads of fewer jobs arm them one by one: not worth the threads.
    package static let parallelArmingThreshold = 1_024
    /// Whether a large first load works its next elapses out on every core (a test turns it off
    /// to compare with the same load armed one by one).
    package var armsInParallel = true

    /// When the wall clock was last set or jumped (as it read after): a calendar slot missed since
    /// then was skipped by the step (``MissedElapses/Reason/clockJump``).
    private var wallClockSetAt: RealtimeInstant?

    /// The wall clock was set or jumped: calendar triggers are computed again; monotonic ones stay.
    /// `active`: the jobs with a run in flight or waiting for a slot.
    /// Jobs with `OnClockChange=` fall due now.
    package func wallClockWasSet(active: Set<String> = []) {
        wallClockSetAt = clocks.realtime()
        let (rearmed, fired) = rearmCalendarJobs(active: active) { $0.onClockChange }
        let due = fired > 0 ? ", \(fired) job(s) with OnClockChange= due" : ""
        logger.notice("wall clock set: \(rearmed) calendar job(s) re-armed\(due)")
    }

    /// The local time zone changed: calendar triggers are computed again in `zone`, and jobs with
    /// `OnTimezoneChange=` fall due now.
    package func timeZoneChanged(to zone: TimeZoneRules, active: Set<String> = []) {
        self.zone = zone
        let (rearmed, fired) = rearmCalendarJobs(active: active) { $0.onTimezoneChange }
        let due = fired > 0 ? ", \(fired) job(s) with OnTimezoneChange= due" : ""
        logger.notice("time zone is now \(zone.identifier): \(rearmed) calendar job(s) re-armed\(due)")
    }

    /// Arms every calendar job's owner again, and those whose timing `fires` says so for now.
    private func rearmCalendarJobs(active: Set<String>, fires: (TimerOptions) -> Bool) -> (rearmed: Int, fired: Int) {
        var (rearmed, fired) = (0, 0)
        for owner in generation.owners.values {
            if fires(owner.definition.timing) {
                owner.arm(at: clocks.monotonic())
                fired += 1
            } else if owner.definition.triggers.contains(where: \.isCalendar) {
                arm(owner, history: histories[owner.name] ?? JobHistory(), active: active.contains(owner.name))
                rearmed += 1
            }
        }
        spreadCatchUps(now: clocks.monotonic())
        return (rearmed, fired)
    }

    /// How many calendar jobs that fell due together, the catch-ups of a start or a resume, start
    /// in the same second: the others follow, this many a second (`CatchUpBurst=`; 0: all at once).
    package var catchUpBurst = DaemonSettings.defaultCatchUpBurst

    /// Spreads the jobs due at `now` (after a load, a set of the wall clock or a resume: every
    /// `Persistent=` catch-up and every slot missed in a suspend at once) over the seconds after
    /// it, ``catchUpBurst`` a second, in an order stable for this machine (``StableSpread``), so
    /// that a resume does not start every missed job in the same instant (as systemd 252 does).
    private func spreadCatchUps(now: MonotonicInstant) {
        // Calendar jobs (and those a clock or zone change made due): a job due at jobd's start by
        // its OnStartupSec= is no catch-up, and starts when it says.
        let due = generation.owners.values.filter { owner in
            let timing = owner.definition.timing
            return (owner.timer.deadline.map { $0 <= now } ?? false)
                && (owner.definition.triggers.contains(where: \.isCalendar) || timing.onClockChange || timing.onTimezoneChange)
        }
        guard due.count > catchUpBurst, catchUpBurst > 0 else { return }
        let ordered = due.map { (StableSpread.hash(hostSeed + "\u{0}" + $0.name), $0) }.sorted { ($0.0, $0.1.name) < ($1.0, $1.1.name) }
        for (index, (_, owner)) in ordered.enumerated() where index >= catchUpBurst {
            owner.arm(at: now + .seconds(index / catchUpBurst))
        }
        logger.notice("\(due.count) jobs due at once: spread over \((due.count - 1) / catchUpBurst + 1) s, \(catchUpBurst) a second")
    }

    /// Makes `definitions` the running generation. Owners of unchanged jobs carry over with their
    /// next elapse untouched; owners of changed and removed jobs are let go (their `deinit` records
    /// it); changed and new jobs get new owners, armed from their history. The owners' bookkeeping
    /// is logged when the old ones are gone, compactly if there are many (``OwnerEventBatch``).
    /// `active`: the jobs with a run in flight or waiting for a slot; `now` defaults to the
    /// scheduler's own monotonic clock.
    @discardableResult
    package func load(_ configuration: JobdScheduler.Generation, active: Set<String> = [], now: MonotonicInstant? = nil) -> ReloadSummary {
        let now = now ?? clocks.monotonic()
        // Every owner the new generation does not keep is released when `replaceGeneration` returns,
        // but for one whose fire the timing thread was delivering at that moment: the delivery holds
        // it until it returns. Waited for here, as at shutdown, so that every retired owner's
        // release is this reload's own, logged before it is done.
        let summary = events.collect {
            let summary = replaceGeneration(with: configuration, active: active, now: now)
            queue.waitForDeliveries()
            return summary
        }
        spreadCatchUps(now: now)
        // The retired owners are gone now, unless something still holds one: watch only those.
        leakDetector?.forgetReleased()
        logger.event(.generationLoad, level: .debug, "generation \(summary.generation) loaded: \(summary)", [
            JobdField.generation: String(summary.generation),
        ])
        return summary
    }

    /// ``load(_:now:)`` of `definitions` alone.
    @discardableResult
    package func load(_ definitions: [JobDefinition], now: MonotonicInstant? = nil) -> ReloadSummary {
        load(JobdScheduler.Generation(jobs: definitions), now: now)
    }

    /// The running generation's owners are changed in place, and a job whose definition is the
    /// one its owner was made from is recognised by a walk beside the last load's (``applied``): a
    /// reload costs an identity check per unchanged job, and work only for what it changed. Job
    /// names in `definitions` are unique, as a configuration's are.
    private func replaceGeneration(with configuration: JobdScheduler.Generation, active: Set<String>, now: MonotonicInstant) -> ReloadSummary {
        let definitions = configuration.jobs
        let number = generation.number + 1
        if firstStartThisBoot {
            // @reboot belongs to the jobs of jobd's first configuration in this boot only.
            firstStartThisBoot = false
            rebootDue = Set(definitions.filter { $0.triggers.contains(.cron(.reboot)) }.map(\.name))
        }
        let nextElapses = nextElapses(of: definitions)
        // The jobs of jobd's first load count from its start; a later load's new schedules from now.
        let scheduleStart = generation.number == 0 ? nil : (monotonic: now, realtime: clocks.realtime())
        if generation.owners.isEmpty { generation.owners.reserveCapacity(definitions.count) }
        // Room for every job's history now, not as each first falls due: a table grown during a
        // burst of runs is made among the burst's own allocations, and keeps their pages after it.
        histories.reserveCapacity(definitions.count)
        var summary = ReloadSummary(generation: number)
        summary.kept.reserveCapacity(definitions.count)
        var keptIDs: [UInt64] = []
        keptIDs.reserveCapacity(definitions.count)
        // Every owner the new generation does not keep is released when this returns.
        var retired: [JobOwner] = []
        let previous = applied.jobs, previousIDs = appliedOwnerIDs
        // Built only once a job is not where it was: a reload that changes nothing keeps the ids.
        var next: [UInt64]?
        var cursor = 0
        for (index, definition) in definitions.enumerated() {
            if cursor < previous.count, previous[cursor] == definition {
                summary.kept.append(previous[cursor].name)
                keptIDs.append(previousIDs[cursor])
                next?.append(previousIDs[cursor])
                cursor += 1
                continue
            }
            if next == nil { next = Array(previousIDs[..<index]) }
            let name = definition.name
            while cursor < previous.count, previous[cursor].name < name { cursor += 1 }
            if cursor < previous.count, previous[cursor].name == name { cursor += 1 }
            if let owner = generation.owners[name] {
                if owner.definition == definition {
                    summary.kept.append(name)
                    keptIDs.append(owner.id)
                    next?.append(owner.id)
                    continue
                }
                summary.changed.append(name)
                retired.append(owner)
                if owner.definition.triggers != definition.triggers { scheduleStarts(name, at: scheduleStart) }
            } else {
                summary.added.append(name)
                scheduleStarts(name, at: scheduleStart)
            }
            let owner = JobOwner(definition: definition, generation: number, context: ownerContext)
            generation.owners[name] = owner
            next?.append(owner.id)
            ownerCreated?(owner)
            var history = histories[name] ?? JobHistory()
            if definition.persistent, history.lastTriggerRealtime == nil, let stored = store?.lastTrigger(of: name) {
                history.lastTriggerRealtime = stored
                histories[name] = history
            }
            arm(owner, history: history, active: active.contains(name), next: nextElapses.flatMap { $0[index] })
        }
        logRetained(OwnerIDRanges(keptIDs), into: number)
        // Every job still defined has its owner now: any other owner's job was removed.
        if generation.owners.count != definitions.count {
            let names = Set(definitions.map(\.name))
            summary.removed = generation.owners.keys.filter { !names.contains($0) }.sorted()
            for name in summary.removed {
                if let owner = generation.owners.removeValue(forKey: name) { retired.append(owner) }
                if !active.contains(name) { histories[name] = nil }
            }
        }
        if let next {
            appliedOwnerIDs = next
        } else if previousIDs.count != definitions.count {
            appliedOwnerIDs = Array(previousIDs[..<definitions.count])
        }
        applied = configuration
        generation.number = number
        if !scheduledElapses.isEmpty {
            for owner in retired { scheduledElapses[owner.id] = nil }
        }
        // The detector keeps only weak references to see that the retired owners really go.
        leakDetector?.retire(retired, now: now)
        return summary
    }

    /// Records that `job`'s schedule, as the load being applied has it, starts at `start` (none at
    /// jobd's first load): no elapse before it is made up (``NextElapse``).
    private func scheduleStarts(_ job: String, at start: (monotonic: MonotonicInstant, realtime: RealtimeInstant)?) {
        guard let start else { return }
        var history = histories[job] ?? JobHistory()
        history.scheduledSince = start.monotonic
        history.scheduledSinceRealtime = start.realtime
        histories[job] = history
    }

    /// Most ranges one `owner.retain` names: a bound on one entry's size however scattered the ids.
    static let maxRetainedRangesPerEntry = 1_000

    /// One `owner.retain` for every owner carried into generation `number` (more only when the ids
    /// are scattered into more than ``maxRetainedRangesPerEntry`` ranges): the journal grows with
    /// what a reload changed, not with the number of jobs, and stays under journald's rate limit.
    private func logRetained(_ kept: OwnerIDRanges, into number: UInt64) {
        for piece in kept.chunked(maxRanges: Self.maxRetainedRangesPerEntry) {
            let count = piece.count
            logger.event(.ownerRetain, level: .debug, "\(count) owner(s) of unchanged jobs carried into generation \(number)", [
                JobdField.generation: String(number), JobdField.owners: piece.description,
                JobdField.ownerCount: String(count),
            ])
        }
    }

    /// Takes the histories an earlier jobd kept (``JobHistory/init(savedText:)``), before the
    /// first load: what `list`, `status` and the metrics show of a job until it runs again.
    package func restore(_ saved: [String: JobHistory]) {
        histories.addMissing(saved)
    }

    /// What a fire of a job's owner was.
    package enum Fire: Sendable, Equatable {
        /// The job fell due; `elapse` is the scheduled instant the fire serves (``servedElapse``): the
        /// calendar elapse a `RunOn=one-node` job's owner was armed for, and what a run gets as
        /// `JOBD_ELAPSE_USEC`.
        case due(elapse: RealtimeInstant?)
        /// The owner is no longer current (the fire was delivered as a reload let it go): nothing is to run.
        case ownerRetired
    }

    /// Records that the job fell due; its timer is re-armed at the next ``settle(isActive:)``.
    package func jobDue(_ due: DueJob, now: MonotonicInstant = .now()) -> Fire {
        guard let owner = generation.owners[due.job], owner.id == due.ownerID else { return .ownerRetired }
        var history = histories[due.job] ?? JobHistory()
        let elapse = scheduledElapses[owner.id] ?? servedElapse(owner.definition, due: due, history: history, now: now)
        countMissed(owner.definition, served: elapse, history: &history)
        history.lastTrigger = now
        // CatchUp=all counts on from the slot it served, so that the next missed one follows.
        let realtime = clocks.realtime()
        history.lastTriggerRealtime = owner.definition.timing.catchUp == .all && elapse <= realtime ? elapse : realtime
        rebootDue.remove(due.job)
        if owner.definition.persistent, let stamp = history.lastTriggerRealtime {
            store?.recordTrigger(of: due.job, at: stamp)
        }
        histories[due.job] = history
        unsettled.insert(due.job)
        return .due(elapse: elapse)
    }

    /// Counts the calendar slots after the one this fire serves that came before it (``MissedElapses``).
    private func countMissed(_ definition: JobDefinition, served: RealtimeInstant, history: inout JobHistory) {
        guard definition.triggers.contains(where: \.isCalendar) else { return }
        let since = [history.lastTriggerRealtime, history.scheduledSinceRealtime].compactMap { $0 }.max() ?? daemonStartRealtime
        let fire = MissedElapses.Fire(served: served, realtime: clocks.realtime(), daemonStart: daemonStartRealtime,
                                      clockWasSet: wallClockSetAt.map { $0 > since } ?? false)
        for (reason, count) in MissedElapses.count(triggers: definition.triggers, fire: fire, zone: zone) {
            history.missedByReason[reason, default: 0] += count
        }
    }

    /// The scheduled instant a fire of `definition`'s owner serves, on the wall clock, from the
    /// history as it was before the fire: the calendar elapse that fell due (the same on every
    /// node, and for every retry of the run), else, for a monotonic trigger or `@reboot`, the
    /// instant the timer fired for.
    private func servedElapse(_ definition: JobDefinition, due: DueJob, history: JobHistory, now: MonotonicInstant) -> RealtimeInstant {
        let realtime = clocks.realtime()
        if definition.triggers.contains(where: \.isCalendar) {
            let wallClock = self.wallClock(of: definition, monotonic: now, realtime: realtime)
            // Not one ahead of the clock: then a monotonic trigger of the job came first.
            if let elapse = NextElapse.calendarElapse(triggers: definition.triggers, history: history, wallClock: wallClock),
               elapse <= realtime { return elapse }
        }
        let late = now.nanoseconds >= due.at.nanoseconds ? Int64(clamping: (now.nanoseconds - due.at.nanoseconds) / 1_000) : 0
        return RealtimeInstant(microseconds: realtime.microseconds - late)
    }

    /// Records that a run of the job started (by a trigger, by hand, as a retry or on another job's
    /// outcome): `OnUnitActiveSec=` counts from it, as from `systemctl start` for a timer.
    package func runStarted(job: String, cause: String, now: MonotonicInstant = .now()) {
        var history = histories[job] ?? JobHistory()
        history.lastStart = now
        history.lastStartRealtime = clocks.realtime()
        history.lastStartCause = cause
        histories[job] = history
        unsettled.insert(job)
    }

    /// Records that a run of the job ended; the job is re-armed at the next ``settle(isActive:)`` (its
    /// `OnUnitInactiveSec=` counts from now). The history of a job that a reload removed goes with
    /// its last run: `active` says whether the job still has a run in flight or waiting for a slot.
    /// A run that ends after ``shutdown()`` (one jobd's own stop stopped) is recorded like any other:
    /// its job was not removed, and its history outlives jobd.
    package func runFinished(_ outcome: RunOutcome, active: Bool = false, now: MonotonicInstant = .now()) {
        let job = outcome.job
        var history = histories[job] ?? JobHistory()
        history.lastFinish = now
        history.lastFinishRealtime = clocks.realtime()
        history.lastRun = outcome
        history.runsByResult[outcome.result] += 1
        if outcome.result == .success { history.lastSuccessRealtime = clocks.realtime() }
        if generation.owners[job] != nil {
            histories[job] = history
            unsettled.insert(job)
        } else if active || isShutDown {
            histories[job] = history
        } else {
            histories[job] = nil
        }
    }

    /// Records that an elapse of the job's triggers started no run, for `reason` (`run.skip`'s
    /// `JOBD_REASON`, or a waiting run's drop): counted for the metrics, not saved.
    package func elapseSkipped(job: String, reason: String) {
        guard generation.owners[job] != nil else { return }
        histories[job, default: JobHistory()].skippedByReason[ElapseSkipReason(reason), default: 0] += 1
    }

    /// Arms, once, the owner of every job whose history changed since the last call: after all an
    /// event did (a fire, a run's start, its end, the runs they started), with `isActive` saying
    /// whether a job has a run in flight or waiting for a slot as the event left it. Asked of the
    /// unsettled jobs only: a set of every active job, made after each event, cost each run's
    /// start time in proportion to the runs in flight (10,000 due at once, issue 39).
    package func settle(isActive: (String) -> Bool) {
        guard !unsettled.isEmpty else { return }
        for job in unsettled {
            if let owner = generation.owners[job] { arm(owner, history: histories[job] ?? JobHistory(), active: isActive(job)) }
        }
        unsettled.removeAll(keepingCapacity: true)
    }

    /// ``settle(isActive:)`` with the active jobs given as a set.
    package func settle(active: Set<String>) {
        settle { active.contains($0) }
    }

    /// Invalidates every timer with `shutdown`, then lets every owner go; their deinits record it,
    /// logged compactly if there are many (``OwnerEventBatch``).
    package func shutdown() {
        isShutDown = true
        events.collect {
            for owner in generation.owners.values.sorted(by: { $0.id < $1.id }) {
                owner.retire(reason: .shutdown)
            }
            logger.event(.generationRetire, level: .debug, "generation \(generation.number) retired at shutdown", [
                JobdField.generation: String(generation.number),
            ])
            // No local may hold an owner past this point, or the check below would see it alive.
            leakDetector?.retire(Array(generation.owners.values), now: .now())
            generation = Generation(number: generation.number, owners: [:])
            applied = JobdScheduler.Generation(jobs: [])
            appliedOwnerIDs = []
            unsettled.removeAll()
            // Nor may a fire the timing thread was delivering when its timer was invalidated.
            queue.waitForDeliveries()
        }
        // Nothing is left to wait for at shutdown: an owner alive now is reported at once.
        leakDetector?.check(now: .now() + (leakDetector?.grace ?? .zero))
    }

    /// Owners of the running generation.
    package var liveOwners: Int { generation.owners.count }

    /// What a plan of the running schedule starts from: the clocks now, the zone, jobd's start.
    package var present: SchedulePlan.Present {
        SchedulePlan.Present(
            wallClock: NextElapse.WallClock(monotonic: clocks.monotonic(), realtime: clocks.realtime(), zone: zone,
                                            daemonStartRealtime: daemonStartRealtime),
            daemonStart: daemonStart, hostSeed: hostSeed)
    }

    /// The running job `name` as a plan takes it, its history and `Cron=@reboot` as they are now.
    package func plannedJob(_ name: String, running: Bool) -> SchedulePlan.Job? {
        guard let owner = generation.owners[name] else { return nil }
        return SchedulePlan.Job(owner.definition, history: histories[name] ?? JobHistory(), running: running,
                                rebootPending: rebootDue.contains(name))
    }

    /// The last trigger the state directory keeps of `Persistent=` job `name`, which a load that
    /// makes the job an owner takes.
    package func storedTrigger(of name: String) -> RealtimeInstant? {
        store?.lastTrigger(of: name)
    }
}

import Glibc
import JobdCalendar
import JobdConfig
import JobdLogging
import JobdTimers
import Logging

/// The scheduler's state and decisions: the running generation of job owners, each job's history,
/// and what to do when a job falls due or a run ends. It does no I/O of its own beyond arming
/// timers and logging; the daemon's main loop owns it and calls it from one task only.
public final class Scheduler {
    /// One configuration generation: the owners of every job it defines, by job name.
    public struct Generation {
        public var number: UInt64
        public var owners: [String: JobOwner]
    }

    /// What a reload changed.
    public struct ReloadSummary: Sendable, Equatable, CustomStringConvertible {
        public var generation: UInt64
        public var added: [String] = []
        public var changed: [String] = []
        public var removed: [String] = []
        public var kept: [String] = []

        public init(
            generation: UInt64, added: [String] = [], changed: [String] = [], removed: [String] = [],
            kept: [String] = []
        ) {
            self.generation = generation
            self.added = added
            self.changed = changed
            self.removed = removed
            self.kept = kept
        }

        public var description: String {
            "generation \(generation): \(added.count) added, \(changed.count) changed, "
                + "\(removed.count) removed, \(kept.count) kept"
        }
    }

    /// What to do with a job that fell due.
    public enum DueDecision: Equatable {
        case run(JobDefinition)
        /// Not run; the reason is logged as `run.skip`.
        case skip(reason: String)
        /// `Overlap=queue` or `replace`: a run starts once the job's runs in flight have ended
        /// (``runFinished(job:outcome:now:)`` returns it then); with `stopRunning` (replace), they
        /// are to be stopped.
        case wait(stopRunning: Bool)
    }

    /// The wall clock, as calendar triggers need it: the system's, or a test's.
    public struct Clocks: Sendable {
        public var monotonic: @Sendable () -> MonotonicInstant
        public var realtime: @Sendable () -> RealtimeInstant

        public init(monotonic: @escaping @Sendable () -> MonotonicInstant, realtime: @escaping @Sendable () -> RealtimeInstant) {
            self.monotonic = monotonic
            self.realtime = realtime
        }

        public static let system = Clocks(monotonic: { .now() }, realtime: {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            return RealtimeInstant(microseconds: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000)
        })
    }

    public let queue: TimerQueue
    public let daemonStart: MonotonicInstant
    public let daemonStartRealtime: RealtimeInstant
    private let logger: Logger
    private let onDue: @Sendable (DueJob) -> Void
    private let clocks: Clocks
    private let store: (any TriggerStore)?
    /// The zone calendar triggers without one of their own are read in.
    public private(set) var zone: TimeZoneRules
    /// Jobs whose `Cron=@reboot` is still due: set at the first load of jobd's first start in a boot.
    private var rebootDue: Set<String> = []
    private var firstStartThisBoot: Bool
    public private(set) var generation = Generation(number: 0, owners: [:])
    /// Watches retired owners; without one, retired owners are simply let go.
    public var leakDetector: LeakDetector?
    /// Called with every owner the scheduler creates: an extension point for observers (and for
    /// a test that plants a leak by holding on to one).
    public var ownerCreated: ((JobOwner) -> Void)?
    public private(set) var histories: [String: JobHistory] = [:]

    public init(
        queue: TimerQueue, daemonStart: MonotonicInstant, logger: Logger,
        clocks: Clocks = .system, zone: TimeZoneRules = .utc, store: (any TriggerStore)? = nil,
        firstStartThisBoot: Bool = false,
        onDue: @escaping @Sendable (DueJob) -> Void
    ) {
        self.queue = queue
        self.daemonStart = daemonStart
        self.logger = logger
        self.onDue = onDue
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
    private func arm(_ owner: JobOwner, history: JobHistory) {
        let definition = owner.definition
        let wallClock = NextElapse.WallClock(
            monotonic: clocks.monotonic(), realtime: clocks.realtime(), zone: zone,
            daemonStartRealtime: daemonStartRealtime, rebootPending: rebootDue.contains(definition.name))
        guard var deadline = NextElapse.next(
            triggers: definition.triggers, daemonStart: daemonStart, history: history, wallClock: wallClock) else {
            owner.arm(at: nil)
            return
        }
        if definition.randomizedDelay > .zero, !definition.randomizedDelay.isInfinite {
            deadline = deadline + .microseconds(Int64(clamping: UInt64.random(in: 0...definition.randomizedDelay.microseconds)))
        }
        // Checked: spans are bounded when read (TimeSpan.maximum), but a definition built in code is not.
        let (accuracy, tooLarge) = definition.accuracy.isInfinite ? (0, false) : definition.accuracy.microseconds.multipliedReportingOverflow(by: 1_000)
        if accuracy > 1, !tooLarge {
            let (rounded, overflow) = deadline.nanoseconds.addingReportingOverflow(accuracy - 1)
            if !overflow { deadline = MonotonicInstant(nanoseconds: rounded / accuracy * accuracy) }
        }
        owner.arm(at: deadline)
    }

    /// The wall clock was set or jumped: calendar triggers are computed again; monotonic ones stay.
    public func wallClockWasSet() {
        var rearmed = 0
        for owner in generation.owners.values where owner.definition.triggers.contains(where: \.isCalendar) {
            arm(owner, history: histories[owner.name] ?? JobHistory())
            rearmed += 1
        }
        logger.notice("wall clock set: \(rearmed) calendar job(s) re-armed")
    }

    /// The local time zone changed: calendar triggers are computed again in `zone`.
    public func timeZoneChanged(to zone: TimeZoneRules) {
        self.zone = zone
        logger.notice("time zone is now \(zone.identifier)")
        wallClockWasSet()
    }

    /// Makes `definitions` the running generation. Owners of unchanged jobs carry over with their
    /// next elapse untouched; owners of changed and removed jobs are let go (their `deinit` logs
    /// it); changed and new jobs get new owners, armed from their history.
    @discardableResult
    public func load(_ definitions: [JobDefinition], now: MonotonicInstant = .now()) -> ReloadSummary {
        let number = generation.number + 1
        if firstStartThisBoot {
            // @reboot belongs to the jobs of jobd's first configuration in this boot only.
            firstStartThisBoot = false
            rebootDue = Set(definitions.filter { $0.triggers.contains(.cron(.reboot)) }.map(\.name))
        }
        var summary = ReloadSummary(generation: number)
        var owners: [String: JobOwner] = [:]
        let previous = generation.owners
        for definition in definitions {
            if let owner = previous[definition.name], owner.definition == definition {
                owners[definition.name] = owner
                summary.kept.append(definition.name)
                logger.event(.ownerRetain, "owner \(owner.id) of \(owner.name) carried into generation \(number)",
                             owner.fields.merging([JobdField.generation: String(number)]) { $1 })
                continue
            }
            if previous[definition.name] != nil {
                summary.changed.append(definition.name)
            } else {
                summary.added.append(definition.name)
            }
            let owner = JobOwner(definition: definition, generation: number, queue: queue, logger: logger, onDue: onDue)
            owners[definition.name] = owner
            ownerCreated?(owner)
            var history = histories[definition.name] ?? JobHistory()
            if definition.persistent, history.lastTriggerRealtime == nil, let stored = store?.lastTrigger(of: definition.name) {
                history.lastTriggerRealtime = stored
                histories[definition.name] = history
            }
            arm(owner, history: history)
        }
        summary.removed = previous.keys.filter { owners[$0] == nil }.sorted()
        for name in summary.removed where histories[name]?.running == 0 {
            histories[name] = nil
        }
        // The old generation, and with it every owner not carried over, is released here; the
        // detector keeps only weak references to see that they really go.
        leakDetector?.retire(previous.values.filter { owners[$0.name] !== $0 }, now: now)
        generation = Generation(number: number, owners: owners)
        logger.event(.generationLoad, "generation \(number) loaded: \(summary)", [
            JobdField.generation: String(number),
        ])
        return summary
    }

    /// Decides what to do with a fall-due, records the trigger, and re-arms the job's timer.
    public func jobDue(_ due: DueJob, now: MonotonicInstant = .now()) -> DueDecision {
        guard let owner = generation.owners[due.job], owner.id == due.ownerID else {
            // A fire of an owner that is no longer current (it was delivered as a reload let it go).
            return .skip(reason: "owner-retired")
        }
        var history = histories[due.job] ?? JobHistory()
        history.lastTrigger = now
        history.lastTriggerRealtime = clocks.realtime()
        rebootDue.remove(due.job)
        if owner.definition.persistent, let stamp = history.lastTriggerRealtime {
            store?.recordTrigger(of: due.job, at: stamp)
        }
        let decision = Self.decide(owner.definition, history: &history, now: now)
        histories[due.job] = history
        arm(owner, history: history)
        return decision
    }

    /// A trigger's or a manual run's fate under the job's `Overlap=`; a run in flight started
    /// under an earlier generation counts, since histories outlive owners.
    private static func decide(_ definition: JobDefinition, history: inout JobHistory, now: MonotonicInstant) -> DueDecision {
        if history.running > 0 {
            switch definition.overlap {
            case .skip:
                return .skip(reason: "overlap")
            case .queue, .replace:
                guard !history.queued else { return .skip(reason: "already-queued") }
                history.queued = true
                return .wait(stopRunning: definition.overlap == .replace)
            case .parallel:
                break
            }
        }
        history.lastStart = now
        history.running += 1
        return .run(definition)
    }

    /// A run asked for by hand (`jobctl run`): the same overlap rule as a trigger, and it counts as
    /// the job's last start (as `systemctl start` counts for a timer's `OnUnitActiveSec=`).
    public func manualRun(job: String, now: MonotonicInstant = .now()) -> DueDecision? {
        guard let owner = generation.owners[job] else { return nil }
        var history = histories[job] ?? JobHistory()
        let decision = Self.decide(owner.definition, history: &history, now: now)
        histories[job] = history
        arm(owner, history: history)
        return decision
    }

    /// Records that a run of `job` ended, and re-arms the job (its `OnUnitInactiveSec=` counts from
    /// now). Returns the definition of a run to start now: the one that waited for this one
    /// (`Overlap=queue` or `replace`), under the job's current definition. A waiting run of a job
    /// that a reload removed is dropped.
    @discardableResult
    public func runFinished(job: String, outcome: String, now: MonotonicInstant = .now()) -> JobDefinition? {
        var history = histories[job] ?? JobHistory()
        history.running = max(0, history.running - 1)
        history.lastFinish = now
        history.lastOutcome = outcome
        var next: JobDefinition?
        if history.running == 0, history.queued {
            history.queued = false
            if let owner = generation.owners[job] {
                next = owner.definition
                history.lastStart = now
                history.running = 1
            }
        }
        if let owner = generation.owners[job] {
            histories[job] = history
            arm(owner, history: history)
        } else if history.running > 0 {
            histories[job] = history
        } else {
            histories[job] = nil
        }
        return next
    }

    /// Invalidates every timer with `shutdown`, then lets every owner go; their deinits log it.
    public func shutdown() {
        for owner in generation.owners.values.sorted(by: { $0.id < $1.id }) {
            owner.retire(reason: .shutdown)
        }
        logger.event(.generationRetire, "generation \(generation.number) retired at shutdown", [
            JobdField.generation: String(generation.number),
        ])
        // No local may hold an owner past this point, or the check below would see it alive.
        leakDetector?.retire(Array(generation.owners.values), now: .now())
        generation = Generation(number: generation.number, owners: [:])
        // Nothing is left to wait for at shutdown: an owner alive now is reported at once.
        leakDetector?.check(now: .now() + (leakDetector?.grace ?? .zero))
    }

    /// Owners of the running generation.
    public var liveOwners: Int { generation.owners.count }
}

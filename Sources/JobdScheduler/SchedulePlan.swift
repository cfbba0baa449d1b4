package import JobdCalendar
package import JobdConfig
package import JobdTimers

/// The schedule as a simulation (`jobctl plan`): each job's elapses from now on, worked out with
/// the scheduler's own rules (``NextElapse``) from the history jobd has, each elapse recorded in a
/// copy of that history as the scheduler records a fire before the next is computed. Values in,
/// rows out: no clock is read and nothing is armed.
package enum SchedulePlan {
    /// Why an elapse falls when it does.
    package enum Reason: String, Sendable, Equatable {
        /// A slot of the job's schedule, still ahead.
        case scheduled
        /// At once: `Persistent=` makes up a calendar slot that passed while jobd was down.
        case catchUp = "catch-up"
        /// At once: a slot passed since the last trigger (jobd busy, the machine suspended, the
        /// wall clock set forward), and is served once, late.
        case missed
    }

    /// One elapse of a job: when its run may start, and what makes it fall due.
    package struct Elapse: Sendable, Equatable {
        package var job: String
        /// The earliest start: the elapse, rounded up to `AccuracySec=` as the scheduler arms it.
        package var earliest: RealtimeInstant
        /// The latest start: the elapse delayed by all of `RandomizedDelaySec=`, rounded likewise.
        package var latest: RealtimeInstant
        /// The trigger that falls due, as the job file spells it (`OnCalendar=daily`).
        package var trigger: String
        package var reason: Reason
    }

    /// What a plan starts from: the present as jobd sees it.
    package struct Present: Sendable {
        package var wallClock: NextElapse.WallClock
        package var daemonStart: MonotonicInstant
        /// The machine's ID, for `FixedRandomDelay=` and `RandomizedOffsetSec=` (``StableSpread``).
        package var hostSeed: String

        package init(wallClock: NextElapse.WallClock, daemonStart: MonotonicInstant, hostSeed: String = "") {
            self.wallClock = wallClock
            self.daemonStart = daemonStart
            self.hostSeed = hostSeed
        }
    }

    /// One job as the plan takes it: its definition, its history, whether a run of it is in flight
    /// (`OnUnitInactiveSec=` waits for its end), and whether its `Cron=@reboot` is still due.
    package struct Job: Sendable {
        package var definition: JobDefinition
        package var history: JobHistory
        package var running: Bool
        package var rebootPending: Bool

        package init(_ definition: JobDefinition, history: JobHistory = JobHistory(), running: Bool = false, rebootPending: Bool = false) {
            self.definition = definition
            self.history = history
            self.running = running
            self.rebootPending = rebootPending
        }
    }

    /// Most elapses a plan's simulations pass over before `from`, all jobs together (10,000
    /// `OnUnitActiveSec=100ms` jobs planned from a day ahead would take 8.6 billion): past it, the
    /// jobs still to reach `from` show no elapse and the plan says it is incomplete, so that a
    /// plan costs jobd's main loop a bounded time.
    package static let maximumSkipped = 1_000_000

    /// A plan: the elapses, and whether ``maximumSkipped`` left some job's out.
    package struct Result: Sendable, Equatable {
        package var elapses: [Elapse]
        package var incomplete: Bool
    }

    /// Every elapse of `jobs` from `from` to `until` (both included), in time order (then by job
    /// name), the first `limit` of them. A run is taken to start at its elapse and end at once:
    /// `OnUnitActiveSec=` and `OnUnitInactiveSec=` count on from the elapse itself. The jobs'
    /// simulations are merged by a heap, so a plan costs a step per job and per elapse shown
    /// (and those passed over before `from`, at most ``maximumSkipped``).
    package static func plan(
        _ jobs: [Job], present: Present, from: RealtimeInstant, until: RealtimeInstant, limit: Int,
        maximumSkipped: Int = SchedulePlan.maximumSkipped
    ) -> Result {
        var cursors = jobs.map { Cursor($0, present: present) }
        var heap = ElapseHeap()
        var budget = maximumSkipped
        for index in cursors.indices {
            if let first = cursors[index].next(from: from, until: until, budget: &budget) { heap.push(first, index) }
        }
        var plan: [Elapse] = []
        while plan.count < limit, let (elapse, index) = heap.pop() {
            plan.append(elapse)
            if let next = cursors[index].next(from: from, until: until, budget: &budget) { heap.push(next, index) }
        }
        return Result(elapses: plan, incomplete: budget < 0)
    }

    /// The elapses of `job` up to `until`, at most `limit`.
    package static func elapses(of job: Job, present: Present, until: RealtimeInstant, limit: Int) -> [Elapse] {
        var cursor = Cursor(job, present: present)
        var found: [Elapse] = []
        var budget = 0
        while found.count < limit, let next = cursor.next(from: RealtimeInstant(microseconds: .min), until: until, budget: &budget) {
            found.append(next)
        }
        return found
    }

    /// One job's simulation: its history and the clock as the elapses so far leave them.
    struct Cursor {
        let definition: JobDefinition
        let present: Present
        var history: JobHistory
        var running: Bool
        var clock: NextElapse.WallClock

        init(_ job: Job, present: Present) {
            (definition, self.present, history, running) = (job.definition, present, job.history, job.running)
            clock = present.wallClock.applying(job.definition, hostSeed: present.hostSeed)
            clock.rebootPending = job.rebootPending
        }

        /// The next elapse from `from` to `until`, each one before it recorded and passed over, as
        /// long as `budget` lasts (each costs one; below zero, it ran out).
        mutating func next(from: RealtimeInstant, until: RealtimeInstant, budget: inout Int) -> Elapse? {
            while let elapse = step(until: until) {
                if elapse.earliest >= from { return elapse }
                budget -= 1
                if budget < 0 { return nil }
            }
            return nil
        }

        /// The next elapse up to `until`, recorded in the history as the scheduler records a fire
        /// (Scheduler.jobDue), with the run's start and end.
        private mutating func step(until: RealtimeInstant) -> Elapse? {
            guard let next = NextElapse.next(
                triggers: definition.triggers, daemonStart: present.daemonStart, history: history, running: running, wallClock: clock)
            else { return nil }
            let atOnce = next <= clock.monotonic
            let elapse = atOnce ? clock.monotonic : next
            let wall = realtime(of: elapse, on: clock)
            guard wall <= until else { return nil }
            // FixedRandomDelay=: one delay, not a range.
            let fixedDelay = definition.timing.fixedRandomDelay ? NextElapse.randomizedDelay(of: definition, hostSeed: present.hostSeed) : nil
            let row = Elapse(
                job: definition.name, earliest: realtime(of: NextElapse.deadline(for: elapse, delay: fixedDelay ?? .zero, accuracy: definition.accuracy), on: clock),
                latest: realtime(of: NextElapse.deadline(for: elapse, delay: fixedDelay ?? definition.randomizedDelay, accuracy: definition.accuracy), on: clock),
                trigger: trigger(of: definition, at: next, history: history, running: running, clock: clock, present: present),
                reason: atOnce ? reason(definition, history: history, clock: clock) : .scheduled)
            history.lastTrigger = elapse
            // CatchUp=all counts on from the slot served, as the scheduler does (Scheduler.jobDue).
            let slot = definition.timing.catchUp == .all
                ? NextElapse.calendarElapse(triggers: definition.triggers, history: history, wallClock: clock) : nil
            history.lastTriggerRealtime = slot.flatMap { $0 <= wall ? $0 : nil } ?? wall
            history.lastStart = elapse
            history.lastFinish = elapse
            running = false
            clock.rebootPending = false
            clock.realtime = wall
            clock.monotonic = elapse
            return row
        }
    }

    /// The wall-clock instant of `instant`, on the clock of `clock`'s moment.
    private static func realtime(of instant: MonotonicInstant, on clock: NextElapse.WallClock) -> RealtimeInstant {
        let ahead = instant.duration(since: clock.monotonic).nanosecondsSaturated / 1_000
        return RealtimeInstant(microseconds: clock.realtime.microseconds &+ ahead)
    }

    /// The first of the job's triggers that falls due at `next`, as written.
    private static func trigger(
        of definition: JobDefinition, at next: MonotonicInstant, history: JobHistory, running: Bool, clock: NextElapse.WallClock,
        present: Present
    ) -> String {
        let due = definition.triggers.first {
            NextElapse.next(triggers: [$0], daemonStart: present.daemonStart, history: history, running: running, wallClock: clock) == next
        }
        return (due ?? definition.triggers.first)?.description ?? ""
    }

    /// Why an elapse due at once is: a `Persistent=` job's calendar slot from before jobd's start,
    /// counted from its stored trigger (a schedule of jobd's first load), or a slot missed since.
    private static func reason(_ definition: JobDefinition, history: JobHistory, clock: NextElapse.WallClock) -> Reason {
        guard definition.persistent, definition.triggers.contains(where: \.isCalendar), history.scheduledSinceRealtime == nil,
              let last = history.lastTriggerRealtime, last < clock.daemonStartRealtime
        else { return .missed }
        return .catchUp
    }

    /// What `Restart=` would do after a failed run of an elapse: the condition, and the delay
    /// before each retry (the first five, then how many more); `nil` without retries.
    package static func retries(_ policy: RestartPolicy) -> String? {
        guard policy.condition != .no, policy.limit > 0 else { return nil }
        let shown = (1...min(policy.limit, 5)).map { "+\(policy.delay(beforeRetry: $0))" }
        let more = policy.limit > 5 ? " and \(policy.limit - 5) more" : ""
        return "\(policy.condition.rawValue): \(policy.limit) retr\(policy.limit == 1 ? "y" : "ies") at \(shown.joined(separator: " "))\(more) after each failed attempt"
    }
}

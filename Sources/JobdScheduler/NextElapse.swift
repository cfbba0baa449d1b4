package import JobdCalendar
package import JobdConfig
package import JobdTimers

/// When a job falls due next: the earliest of its triggers, following systemd's timer rules with
/// the differences below, chosen so that a job runs only when it is due (jobd.job(5), "When a job
/// is due", has the whole table beside Debian's cron and systemd 252):
///
/// - A job's schedule counts from when it entered the configuration: jobd's start for the jobs of
///   its first load, else the reload that added the job or changed its triggers
///   (``JobHistory/scheduledSince``). No elapse before that is ever made up. (systemd fires a timer
///   started after its `OnBootSec=`/`OnCalendar=` slot passed at once.)
/// - `OnStartupSec=`: once, at jobd's start plus the span; not again once a trigger came after it,
///   and not at all when that instant passed before the job's schedule existed.
/// - `OnUnitActiveSec=`: the span after the latest of the last start, the last trigger and the
///   schedule's start (so a skipped trigger does not fire again at once, as in systemd).
/// - `OnUnitInactiveSec=`: the span after the latest of the last finish, the last trigger and the
///   schedule's start; while a run is in flight it waits for the finish rather than fall due into a
///   skip. (systemd leaves a timer whose unit never ran unarmed, so a job with only
///   `OnUnitActiveSec=5min` would never run; here it runs five minutes after its schedule's start.)
/// - `OnCalendar=` and `Cron=`: the next elapse after the later of the last trigger and the
///   schedule's start, on the wall clock, as systemd does; so a trigger missed while jobd was busy,
///   or the machine suspended, or the clock set forward, fires once at once, and one missed while
///   jobd was down fires once at its start with `Persistent=` only. After the wall clock was set
///   back by up to ``clockCorrection`` nothing already served is served again (as cron's fixed-time
///   jobs at the end of summer time); a step further back is a correction of the clock, and the
///   schedule follows the new clock from now.
/// - `Cron=@reboot`: once at jobd's first start in a boot.
/// - `RandomizedOffsetSec=` moves every calendar elapse later by the job's fixed share of it;
///   `DeferReactivation=` counts calendar slots from the last run's end too, and holds them while a
///   run is in flight.
///
/// A time in the past means "now": a trigger missed while jobd was busy fires at once.
package enum NextElapse {
    /// The wall clock and zone at one moment, for calendar triggers.
    package struct WallClock: Sendable {
        /// The monotonic time of the same moment as `realtime`.
        package var monotonic: MonotonicInstant
        package var realtime: RealtimeInstant
        package var zone: TimeZoneRules
        /// jobd's start on the wall clock.
        package var daemonStartRealtime: RealtimeInstant
        /// Whether this job's `Cron=@reboot` is still due in this boot.
        package var rebootPending: Bool
        /// This job's share of its `RandomizedOffsetSec=`, in microseconds: its calendar elapses
        /// fall this much after their slots, and a slot counts as served until then.
        package var calendarOffset: Int64 = 0
        /// `DeferReactivation=`: calendar slots count from the last run's end too, and none falls
        /// due while a run is in flight.
        package var deferReactivation = false
        /// `CatchUp=all`: calendar slots count from the last slot served, not the last trigger's
        /// time, and none falls due while a run is in flight, so missed slots run one by one.
        package var catchUpAll = false
        /// No slot before this is made up: for `CatchUp=none`, the last set of the wall clock (a
        /// resume); for `CatchUp=all`, the start of `CatchUpWindowSec=`.
        package var notBefore: RealtimeInstant?

        /// The same moment for `definition`'s calendar triggers: its share of `RandomizedOffsetSec=`
        /// on the machine `hostSeed` (``StableSpread``) and its `DeferReactivation=`.
        package func applying(_ definition: JobDefinition, hostSeed: String) -> WallClock {
            var wallClock = self
            let offset = definition.timing.randomizedOffset
            wallClock.calendarOffset = offset > .zero && !offset.isInfinite
                ? StableSpread.share(of: Int64(clamping: offset.microseconds), job: definition.name, seed: hostSeed) : 0
            wallClock.deferReactivation = definition.timing.deferReactivation
            wallClock.catchUpAll = definition.timing.catchUp == .all
            if wallClock.catchUpAll {
                let window = definition.timing.catchUpWindow
                wallClock.notBefore = window.isInfinite ? nil
                    : RealtimeInstant(microseconds: realtime.microseconds - Int64(clamping: window.microseconds))
            }
            return wallClock
        }

        package init(
            monotonic: MonotonicInstant, realtime: RealtimeInstant, zone: TimeZoneRules,
            daemonStartRealtime: RealtimeInstant, rebootPending: Bool = false
        ) {
            self.monotonic = monotonic
            self.realtime = realtime
            self.zone = zone
            self.daemonStartRealtime = daemonStartRealtime
            self.rebootPending = rebootPending
        }
    }

    /// `RandomizedDelaySec=`'s delay at an elapse of `definition`: its fixed share on the machine
    /// `hostSeed` with `FixedRandomDelay=`, else drawn anew.
    package static func randomizedDelay(of definition: JobDefinition, hostSeed: String) -> TimeSpan {
        let delay = definition.randomizedDelay
        guard delay > .zero, !delay.isInfinite else { return .zero }
        return TimeSpan(microseconds: definition.timing.fixedRandomDelay
            ? UInt64(StableSpread.share(of: Int64(clamping: delay.microseconds), job: definition.name, seed: hostSeed))
            : UInt64.random(in: 0...delay.microseconds))
    }

    /// The next elapse; `running` says whether a run of the job is in flight (`OnUnitInactiveSec=` waits for it).
    package static func next(
        triggers: [Trigger], daemonStart: MonotonicInstant, history: JobHistory, running: Bool = false,
        wallClock: WallClock? = nil
    ) -> MonotonicInstant? {
        var earliest: MonotonicInstant?
        func consider(_ candidate: MonotonicInstant) {
            if earliest.map({ candidate < $0 }) ?? true { earliest = candidate }
        }
        for trigger in triggers {
            switch trigger {
            case .startup(let span):
                let elapse = daemonStart + span.duration
                if let lastTrigger = history.lastTrigger, lastTrigger >= elapse { continue }
                if let since = history.scheduledSince, elapse < since { continue }
                consider(elapse)
            case .unitActive(let span):
                let base = [history.lastStart, history.lastTrigger, history.scheduledSince].compactMap { $0 }.max() ?? daemonStart
                consider(base + span.duration)
            case .unitInactive(let span):
                guard !running else { continue }
                let base = [history.lastFinish, history.lastTrigger, history.scheduledSince].compactMap { $0 }.max() ?? daemonStart
                consider(base + span.duration)
            case .calendar, .cron(.schedule):
                if running, wallClock?.deferReactivation == true || wallClock?.catchUpAll == true { continue }
                guard let wallClock, let elapse = calendarElapse(of: trigger, history: history, wallClock: wallClock) else { continue }
                let ahead = elapse.microseconds + wallClock.calendarOffset - wallClock.realtime.microseconds
                consider(ahead <= 0 ? wallClock.monotonic : wallClock.monotonic + .microseconds(ahead))
            case .cron(.reboot):
                if wallClock?.rebootPending == true, history.lastTrigger == nil { consider(daemonStart) }
            }
        }
        return earliest
    }

    /// The next calendar elapse of `triggers` on the wall clock: the scheduled time itself, before
    /// `RandomizedDelaySec=` and `AccuracySec=`, the same on every node that computes it. A fleet
    /// names an elapse by it.
    package static func calendarElapse(triggers: [Trigger], history: JobHistory, wallClock: WallClock) -> RealtimeInstant? {
        triggers.compactMap { calendarElapse(of: $0, history: history, wallClock: wallClock) }.min()
    }

    /// The deadline the scheduler arms for `elapse` (``Scheduler``'s `arm`): delayed by `delay`
    /// (a draw of `RandomizedDelaySec=`; none when infinite), then rounded up to a multiple of
    /// `accuracy`, so that timers with the same `AccuracySec=` coalesce into one wake-up.
    package static func deadline(for elapse: MonotonicInstant, delay: TimeSpan, accuracy: TimeSpan) -> MonotonicInstant {
        var deadline = elapse
        if delay > .zero, !delay.isInfinite { deadline = deadline + .microseconds(Int64(clamping: delay.microseconds)) }
        // Checked: spans are bounded when read (TimeSpan.maximum), but a definition built in code is not.
        let (nanoseconds, tooLarge) = accuracy.isInfinite ? (0, false) : accuracy.microseconds.multipliedReportingOverflow(by: 1_000)
        if nanoseconds > 1, !tooLarge {
            let (rounded, overflow) = deadline.nanoseconds.addingReportingOverflow(nanoseconds - 1)
            if !overflow { deadline = MonotonicInstant(nanoseconds: rounded / nanoseconds * nanoseconds) }
        }
        return deadline
    }

    /// How far back a step of the wall clock may go before it counts as a correction rather than a
    /// change (the end of summer time, a small adjustment): cron's 3 hours.
    package static let clockCorrection: Int64 = 3 * 3_600_000_000

    /// What a calendar trigger's next elapse counts from: the later of the last trigger and the
    /// schedule's start (jobd's start when neither is known). When that lies ahead of the wall
    /// clock, the clock was set back: by up to ``clockCorrection`` the base stays, so that no slot
    /// is served twice; further, the schedule follows the new clock.
    /// With `RandomizedOffsetSec=`, the base moves back by the job's offset: a slot counts by its
    /// offset elapse, served once that came, due once it comes after the base. With
    /// `DeferReactivation=`, the last run's end counts too.
    package static func calendarBase(history: JobHistory, wallClock: WallClock) -> RealtimeInstant {
        let finish = wallClock.deferReactivation ? history.lastFinishRealtime : nil
        let latest = [history.lastTriggerRealtime, history.scheduledSinceRealtime, finish, wallClock.notBefore].compactMap { $0 }.max()
        let base = RealtimeInstant(microseconds: (latest ?? wallClock.daemonStartRealtime).microseconds - wallClock.calendarOffset)
        let ahead = base.microseconds.subtractingReportingOverflow(wallClock.realtime.microseconds)
        guard ahead.overflow || ahead.partialValue > clockCorrection else { return base }
        return RealtimeInstant(microseconds: wallClock.realtime.microseconds - wallClock.calendarOffset)
    }

    private static func calendarElapse(of trigger: Trigger, history: JobHistory, wallClock: WallClock) -> RealtimeInstant? {
        let base = calendarBase(history: history, wallClock: wallClock)
        return switch trigger {
        case .calendar(let spec): spec.nextElapse(after: base, in: wallClock.zone)
        case .cron(let spec): spec.nextElapse(after: base, in: wallClock.zone)
        default: nil
        }
    }
}

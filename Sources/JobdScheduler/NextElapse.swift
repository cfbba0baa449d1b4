package import JobdCalendar
package import JobdConfig
package import JobdTimers

/// When a job falls due next: the earliest of its triggers, following systemd's timer rules with one
/// difference, chosen because a job file is all a user writes:
///
/// - `OnStartupSec=`: once, at jobd's start plus the span; not again once a trigger came after it.
/// - `OnUnitActiveSec=`: the span after the later of the last start and the last trigger (so a
///   skipped trigger does not fire again at once, as in systemd).
/// - `OnUnitInactiveSec=`: the span after the later of the last finish and the last trigger; while
///   a run is in flight it waits for the finish rather than fall due into a skip.
/// - A job that has not run yet counts from jobd's start. (systemd leaves such a timer unarmed, so a
///   job with only `OnUnitActiveSec=5min` would never run; here it runs five minutes after start.)
///
/// - `OnCalendar=` and `Cron=`: the next elapse after the last trigger on the wall clock (or after
///   jobd's start when there is none), as systemd does; so a trigger missed while jobd was busy, or
///   suspended, or down with `Persistent=`, fires once at once. After the wall clock was set back,
///   the schedule follows the new clock: the next elapse counts from now, not from a last trigger
///   that now lies in the future.
/// - `Cron=@reboot`: once at jobd's first start in a boot.
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
                consider(elapse)
            case .unitActive(let span):
                let base = [history.lastStart, history.lastTrigger].compactMap { $0 }.max() ?? daemonStart
                consider(base + span.duration)
            case .unitInactive(let span):
                guard !running else { continue }
                let base = [history.lastFinish, history.lastTrigger].compactMap { $0 }.max() ?? daemonStart
                consider(base + span.duration)
            case .calendar, .cron(.schedule):
                guard let wallClock, let elapse = calendarElapse(of: trigger, history: history, wallClock: wallClock) else { continue }
                let ahead = elapse.microseconds - wallClock.realtime.microseconds
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

    private static func calendarElapse(of trigger: Trigger, history: JobHistory, wallClock: WallClock) -> RealtimeInstant? {
        let base = min(history.lastTriggerRealtime ?? wallClock.daemonStartRealtime, wallClock.realtime)
        return switch trigger {
        case .calendar(let spec): spec.nextElapse(after: base, in: wallClock.zone)
        case .cron(let spec): spec.nextElapse(after: base, in: wallClock.zone)
        default: nil
        }
    }
}

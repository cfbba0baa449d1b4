package import JobdCalendar
package import JobdConfig

/// The calendar slots a fire did not serve: a calendar trigger that fell due late (jobd was down
/// with `Persistent=`, the machine suspended, the wall clock set forward) fires once, for the first
/// slot it missed (jobd.job(5), "When a job is due"), and every later slot up to the fire is missed.
/// Counted by reason for the metrics' `jobd_job_missed_elapses_total`.
package enum MissedElapses {
    /// Why a slot was missed.
    package enum Reason: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Before jobd's start: it was down (counted for `Persistent=` jobs, whose stamp says when they last fell due).
        case jobdDown = "jobd-down"
        /// The wall clock was set forward over it, or the machine was suspended over it (the
        /// kernel reports a resume as a set of the clock, and so does jobd's journal: the two are
        /// one to jobd).
        case clockJump = "clock-jump"
        /// jobd's timer fired after it with no step of the clock: a stalled main loop.
        case late

        package static func < (lhs: Reason, rhs: Reason) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The most slots one fire counts: a minutely job after a year down has 525,600, and the main
    /// loop must not spend that long on a number; the count then stops here.
    package static let limit = 10_000

    /// What one fire tells: the slot it served, when it fired, and what the clock did before.
    package struct Fire: Sendable {
        package var served: RealtimeInstant
        package var realtime: RealtimeInstant
        package var daemonStart: RealtimeInstant
        /// Whether the wall clock was set (or the machine resumed) since the job's last trigger.
        package var clockWasSet: Bool

        package init(served: RealtimeInstant, realtime: RealtimeInstant, daemonStart: RealtimeInstant, clockWasSet: Bool) {
            (self.served, self.realtime, self.daemonStart, self.clockWasSet) = (served, realtime, daemonStart, clockWasSet)
        }
    }

    /// The slots of `triggers` after `fire.served` and at or before the fire, by reason.
    package static func count(triggers: [Trigger], fire: Fire, zone: TimeZoneRules) -> [Reason: UInt64] {
        var missed: [Reason: UInt64] = [:]
        var base = fire.served
        for _ in 0..<limit {
            let next = triggers.compactMap { trigger -> RealtimeInstant? in
                switch trigger {
                case .calendar(let spec): spec.nextElapse(after: base, in: zone)
                case .cron(let spec): spec.nextElapse(after: base, in: zone)
                default: nil
                }
            }.min()
            guard let slot = next, slot <= fire.realtime, slot > base else { break }
            missed[reason(of: slot, fire), default: 0] += 1
            base = slot
        }
        return missed
    }

    private static func reason(of slot: RealtimeInstant, _ fire: Fire) -> Reason {
        slot < fire.daemonStart ? .jobdDown : fire.clockWasSet ? .clockJump : .late
    }
}

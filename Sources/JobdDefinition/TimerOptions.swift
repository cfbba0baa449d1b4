package import JobdUnitFile

/// The timer settings systemd added after the triggers themselves (systemd.timer(5)), which change
/// when an elapse falls or add an elapse of its own.
package struct TimerOptions: Sendable, Hashable {
    /// `FixedRandomDelay=` (systemd 247): `RandomizedDelaySec=`'s delay is the same at every elapse,
    /// derived from the machine and the job's name, rather than drawn anew.
    package var fixedRandomDelay = false
    /// `RandomizedOffsetSec=` (systemd 258): calendar elapses fall this much later at most, by a
    /// fixed fraction of it derived from the machine and the job's name, with no regard to jobd's
    /// start (so the period holds across restarts).
    package var randomizedOffset: TimeSpan = .zero
    /// `DeferReactivation=` (systemd 257): a calendar job's next elapse counts from its last run's
    /// end, so a run longer than the period does not fall due again the moment it ends.
    package var deferReactivation = false
    /// `OnClockChange=` (systemd 242): the job falls due when the wall clock jumps.
    package var onClockChange = false
    /// `OnTimezoneChange=` (systemd 242): the job falls due when the local time zone changes.
    package var onTimezoneChange = false

    /// `CatchUp=`: what becomes of calendar slots missed while jobd was down, the machine was
    /// suspended or the clock was set forward; `nil` (unset) is systemd's way: one run for those of
    /// a suspend or a set clock, and for those of jobd's downtime only with `Persistent=yes`.
    package var catchUp: CatchUpPolicy?
    /// `CatchUpWindowSec=`: with `CatchUp=all`, only the slots this far back are run.
    package var catchUpWindow: TimeSpan = TimerOptions.defaultCatchUpWindow
    package static let defaultCatchUpWindow = TimeSpan.seconds(86_400)

    package init() {}

    /// The keys of `definition` set to something that changes nothing, each with why (`jobctl
    /// check` warns): those for calendar slots on a job without `OnCalendar=` or `Cron=`, as
    /// systemd.timer(5) says of them, and `FixedRandomDelay=` without a delay to fix.
    package static func ineffectiveKeys(of definition: JobDefinition) -> [(key: String, why: String)] {
        let timing = definition.timing
        var found: [(key: String, why: String)] = []
        if !definition.triggers.contains(where: \.isCalendar) {
            let noCalendar = "it acts on calendar slots, and the job has no OnCalendar= or Cron="
            if timing.randomizedOffset > .zero { found.append(("RandomizedOffsetSec", noCalendar)) }
            if timing.deferReactivation { found.append(("DeferReactivation", noCalendar)) }
            if timing.catchUp != nil { found.append(("CatchUp", noCalendar)) }
        }
        if timing.fixedRandomDelay, definition.randomizedDelay == .zero {
            found.append(("FixedRandomDelay", "RandomizedDelaySec= is 0, so there is no delay to fix"))
        }
        return found
    }
}

/// `CatchUp=`: Temporal's skip, one and all, with `Persistent=yes` as systemd's spelling of `latest`.
package enum CatchUpPolicy: String, Sendable, Hashable, CaseIterable {
    /// No missed slot is made up: the job waits for its next slot.
    case none
    /// One run for all the missed slots, at once (serving the latest).
    case latest
    /// Each missed slot within `CatchUpWindowSec=` runs, oldest first, one after the other.
    case all
}

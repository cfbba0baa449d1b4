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

    package init() {}
}

package import JobdCalendar
package import JobdUnitFile

/// What makes a job fall due.
package enum Trigger: Sendable, Hashable, CustomStringConvertible {
    /// `OnStartupSec=`: once, this long after jobd started.
    case startup(TimeSpan)
    /// `OnUnitActiveSec=`: this long after the job last started.
    case unitActive(TimeSpan)
    /// `OnUnitInactiveSec=`: this long after the job last finished.
    case unitInactive(TimeSpan)
    /// `OnCalendar=`: at the times of a systemd calendar event. Boxed (`indirect`), as is `cron`,
    /// so that a trigger is two words rather than the size of the largest spec.
    indirect case calendar(CalendarSpec)
    /// `Cron=`: at the times of a five-field cron line, as Debian's cron reads it, or `@reboot`.
    indirect case cron(CronSpec)

    package var description: String {
        switch self {
        case .startup(let span): "OnStartupSec=\(span)"
        case .unitActive(let span): "OnUnitActiveSec=\(span)"
        case .unitInactive(let span): "OnUnitInactiveSec=\(span)"
        case .calendar(let spec): "OnCalendar=\(spec.normalized)"
        case .cron(let spec): "Cron=\(spec.normalized)"
        }
    }

    /// Whether the trigger follows the wall clock (and so moves when the clock is set).
    package var isCalendar: Bool {
        switch self {
        case .calendar, .cron: true
        default: false
        }
    }
}

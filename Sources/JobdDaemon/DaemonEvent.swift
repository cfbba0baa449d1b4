package import JobdConfig
package import JobdControl
package import JobdFleet
package import JobdScheduler
package import JobdTimers
package import UnixSignals

/// Everything the main loop reacts to, in the order it arrived: fires from the timing thread, runs
/// that ended, signals, and the deadlines of its own.
package enum DaemonEvent: Sendable {
    case due(DueJob)
    /// A run ended, and when: the runner's instant, not the loop's later one, so that
    /// `OnUnitInactiveSec=` and a retry's delay count from the end itself, as systemd's do.
    case runFinished(RunOutcome, finished: MonotonicInstant)
    /// A failed run's retry is due (`Restart=`).
    case retriesDue
    /// A job's `ExpectSuccessWithinSec=` deadline is due.
    case successDeadlineDue
    /// The loader thread has read the configuration for a reload.
    case configurationRead(JobdConfiguration, JobFileCache)
    /// The loader thread has read the configuration for `reload-preview`, whose client waits on `reply`.
    case previewRead(JobdConfiguration, ControlReply)
    /// A reload has been reading the configuration for a while: say so in `STATUS=`.
    case reloadIsSlow
    /// Time to write `MetricsFile=`.
    case writeMetrics
    case signal(UnixSignal)
    /// Time to ping the service manager's watchdog.
    case watchdogTick
    /// Time to send again the notifications the notify socket had no room for.
    case notifyRetry
    /// Time to send the change of `STATUS=` that waited (``StatusLine/pace``).
    case statusDue
    /// Retired owners' grace has ended: see whether they went.
    case leakCheck
    /// The wall clock was set or jumped.
    case wallClockSet
    /// `/etc/localtime` changed.
    case timeZoneChanged
    /// One of cron's files changed (cron mode, ``CronWatch``): what changed, for the journal.
    case cronChanged(String)
    /// A request on the control socket, and the way to answer it.
    case control(ControlRequest, ControlReply)
    /// A fleet claim's verdict for a run the admission started (MainLoop+Fleet.swift).
    case fleetClaimed(RunRequest, ClaimVerdict)
    /// News from the fleet link: (re)connected, unavailable, the clock check, lost runs.
    case fleet(FleetLink.Notice)
}

/// What happened to the jobs' timers of one instance.
package struct TimerCounts: Sendable, Hashable, Codable {
    /// `timer.schedule` events; `nil` when none was logged (they are debug level).
    package var scheduled: Int?
    /// `timer.fire` events of jobs' timers.
    package var fired = 0
    /// `timer.invalidate` events of jobs' timers.
    package var invalidated = 0
    /// Those invalidations by `JOBD_REASON` (`owner-deinit`, `target-gone`, `shutdown`).
    package var invalidatedByReason: [String: Int] = [:]
    /// Fires logged after their owner's deinit that the scheduler dropped (`run.skip` with
    /// `owner-retired`, or during stop): delivered before the release, handled after it. Not a problem.
    package var lateFiresDropped = 0
    /// Invalidations of timers that belong to no job owner (`JOBD_OWNER=0`, the watchdog's).
    package var otherInvalidated = 0

    /// No timers.
    package init() {}
}

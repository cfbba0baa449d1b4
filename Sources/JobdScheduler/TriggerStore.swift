package import JobdCalendar

/// Where `Persistent=` jobs' last triggers are kept across jobd's restarts.
package protocol TriggerStore: Sendable {
    func lastTrigger(of job: String) -> RealtimeInstant?
    func recordTrigger(of job: String, at instant: RealtimeInstant)
}

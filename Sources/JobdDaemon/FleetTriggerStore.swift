import JobdCalendar
import JobdScheduler

/// `Persistent=` for fleet jobs: the later of this node's own last trigger and the last elapse the
/// fleet claimed (read from the database at start), so that a node catches up an elapse only if no
/// node ran a later one. Triggers are recorded locally, as for host jobs.
struct FleetTriggerStore: TriggerStore {
    let local: any TriggerStore
    let fleet: [String: RealtimeInstant]

    func lastTrigger(of job: String) -> RealtimeInstant? {
        [local.lastTrigger(of: job), fleet[job]].compactMap { $0 }.max()
    }

    func recordTrigger(of job: String, at instant: RealtimeInstant) {
        local.recordTrigger(of: job, at: instant)
    }
}

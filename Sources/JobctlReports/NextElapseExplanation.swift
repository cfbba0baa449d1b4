package import JobdControl

/// The last line of `jobctl why`: when the job falls due next and what will decide whether that
/// elapse runs, as its status says it.
package struct NextElapseExplanation: Sendable, Equatable {
    package var timeUSec: Int64?
    package var triggers: [String]
    /// `jobctl disable`: the elapse will start nothing.
    package var disabled: Bool
    /// The job file has errors and the job is not loaded.
    package var notLoaded: Bool
    package var persistent: Bool?
    package var overlap: String?
    /// Runs in flight now: under `Overlap=skip` the elapse is skipped if one still is.
    package var running: Int
    package var conditions: [String]
    /// A failed run's retry that comes first.
    package var retryUSec: Int64?

    package init(status: JobStatus, nowUSec: Int64) {
        timeUSec = status.nextElapseUSec
        triggers = status.triggers
        disabled = status.disabled == true
        notLoaded = status.disabledByErrors && status.owner == 0
        persistent = status.persistent
        overlap = status.overlap
        running = status.running
        conditions = status.conditions ?? []
        retryUSec = status.retryUSec
    }

    /// The reasons in plain words, most decisive first, without the time.
    package var deciders: [String] {
        if notLoaded { return ["the job file has errors: the job is not loaded (jobctl check)"] }
        if disabled { return ["disabled: its triggers start no runs (jobctl enable)"] }
        if triggers.isEmpty { return ["no trigger: only jobctl run, OnFailure= or OnSuccess= start it"] }
        var deciders: [String] = []
        switch overlap {
        case "skip"?:
            deciders.append(running > 0 ? "skipped if the run in flight (\(running)) has not ended then (Overlap=skip)"
                                        : "skipped if a run is still in flight then (Overlap=skip)")
        case "queue"?: deciders.append("waits for a run still in flight (Overlap=queue)")
        case "replace"?: deciders.append("stops a run still in flight (Overlap=replace)")
        case "parallel"?: deciders.append("starts beside any run in flight (Overlap=parallel)")
        default: break
        }
        if !conditions.isEmpty { deciders.append("runs only if " + conditions.joined(separator: ", ") + " hold(s) then") }
        let calendar = triggers.contains { $0.hasPrefix("OnCalendar=") || $0.hasPrefix("Cron=") }
        switch calendar ? persistent : nil {
        case true?: deciders.append("if jobd is down then, it runs once when jobd starts (Persistent=yes)")
        case false?: deciders.append("if jobd is down then, it is missed (Persistent=no)")
        default: break
        }
        return deciders
    }
}

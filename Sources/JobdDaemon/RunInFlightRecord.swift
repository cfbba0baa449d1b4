package import JobdConfig
import JobdScheduler

/// A run in flight, as the state directory keeps it (`runs/JOBD_RUN_ID`) from its start to its
/// end: if jobd stops without recording the end (SIGKILL, a crash, the watchdog), the next jobd
/// finds it and records the run as ``RunResult/abandoned`` (issue 36), in ``SavedFields``' text.
package struct RunInFlightRecord: Sendable, Hashable {
    package var invocationID: String
    package var job: String
    package var cause: String
    /// When it started, in microseconds since the epoch.
    package var startUSec: Int64
    /// For a user's job, whose it was (``RunRequest/owningUID``): its `run.abandoned` entry is
    /// hers as the run's other entries were (`JOBD_JOB_UID=`), whatever the job is by then.
    package var owningUID: UInt32?

    package init(invocationID: String, job: String, cause: String, startUSec: Int64, owningUID: UInt32? = nil) {
        self.invocationID = invocationID
        self.job = job
        self.cause = cause
        self.startUSec = startUSec
        self.owningUID = owningUID
    }

    package var savedText: String {
        ([SavedFields.line("job", job), SavedFields.line("cause", cause), SavedFields.line("start", String(startUSec))]
            + (owningUID.map { [SavedFields.line("uid", String($0))] } ?? []))
            .joined(separator: "\n") + "\n"
    }

    /// The record kept as `text` under `invocationID`; `nil` when it names no job.
    package init?(savedText text: Substring, invocationID: String) {
        let values = SavedFields.values(of: text)
        guard let job = values["job"], !job.isEmpty else { return nil }
        self.init(invocationID: invocationID, job: String(job), cause: values["cause"].map(String.init) ?? "",
                  startUSec: values["start"].flatMap { Int64($0) } ?? 0, owningUID: values["uid"].flatMap { UInt32($0) })
    }

    /// How the run ended, as far as anyone knows: ``RunResult/abandoned``, at `nowUSec`.
    package func outcome(nowUSec: Int64) -> RunOutcome {
        RunOutcome(runID: 0, invocationID: invocationID, job: job, termination: .unknown, result: .abandoned,
                   duration: TimeSpan(microseconds: UInt64(max(0, nowUSec - startUSec))))
    }
}

package import JobdConfig
import JobdScheduler

/// A run in flight, as the runtime directory keeps it (`runs/JOBD_RUN_ID`) from its start to its
/// end: if jobd stops without recording the end (SIGKILL, a crash, the watchdog), the next jobd
/// finds it and records the run as ``RunResult/abandoned`` (issue 36), in ``SavedFields``' text.
/// With the process's pid and start time, the next jobd can instead adopt the run, or take its real
/// end from the keeper (``Adoption``): the pair names one process even when the pid is reused.
package struct RunInFlightRecord: Sendable, Hashable {
    package var invocationID: String
    package var job: String
    package var cause: String
    /// When it started, in microseconds since the epoch.
    package var startUSec: Int64
    /// For a user's job, whose it was (``RunRequest/owningUID``): its `run.abandoned` entry is
    /// hers as the run's other entries were (`JOBD_JOB_UID=`), whatever the job is by then.
    package var owningUID: UInt32?
    /// The run's process, once it is spawned; `nil` in a record written before (or by an older jobd).
    package var process: ProcessIdentity?
    /// What a handover adds: the cgroup, and the start of a line on each pipe.
    package var handedOver = HandedOverRun()
    /// The fleet claim the run holds, if it is a fleet run: the next jobd renews it (issue 36).
    package var claim: HeldClaim?

    package init(
        invocationID: String, job: String, cause: String, startUSec: Int64, owningUID: UInt32? = nil, process: ProcessIdentity? = nil,
        handedOver: HandedOverRun = HandedOverRun(), claim: HeldClaim? = nil
    ) {
        self.invocationID = invocationID
        self.job = job
        self.cause = cause
        self.startUSec = startUSec
        self.owningUID = owningUID
        self.process = process
        self.handedOver = handedOver
        self.claim = claim
    }

    package var savedText: String {
        var lines = [SavedFields.line("job", job), SavedFields.line("cause", cause), SavedFields.line("start", String(startUSec))]
        if let owningUID { lines.append(SavedFields.line("uid", String(owningUID))) }
        if let process {
            lines += [SavedFields.line("pid", String(process.pid)), SavedFields.line("start_ticks", String(process.startTicks))]
        }
        if let claim { lines += claim.savedLines }
        lines += handedOver.savedLines
        return lines.joined(separator: "\n") + "\n"
    }

    /// The record kept as `text` under `invocationID`; `nil` when it names no job.
    package init?(savedText text: Substring, invocationID: String) {
        let values = SavedFields.values(of: text)
        guard let job = values["job"], !job.isEmpty else { return nil }
        self.init(invocationID: invocationID, job: String(job), cause: values["cause"].map(String.init) ?? "",
                  startUSec: values["start"].flatMap { Int64($0) } ?? 0, owningUID: values["uid"].flatMap { UInt32($0) },
                  process: ProcessIdentity(values), handedOver: HandedOverRun(values),
                  claim: HeldClaim(values))
    }

    /// How the run ended, as far as anyone knows: ``RunResult/abandoned``, at `nowUSec`.
    package func outcome(nowUSec: Int64) -> RunOutcome {
        RunOutcome(runID: 0, invocationID: invocationID, job: job, termination: .unknown, result: .abandoned,
                   duration: TimeSpan(microseconds: UInt64(max(0, nowUSec - startUSec))))
    }
}

import JobdConfig
import JobdControl
import JobdRunner
import JobdScheduler

/// Who waits for which run (`jobctl run --wait`), and with `--follow-retries` for the run's
/// retries and the runs its last attempt starts (`OnFailure=`, `OnSuccess=`): each waiter gets a
/// `run-finished` for every run it follows, and its connection ends with the last of them. Who
/// waits for a job's runs to end after `jobctl stop --wait` waits here too.
struct RunWaiters {
    private final class Waiter {
        let reply: ControlReply
        let follows: Bool
        let streams: Bool
        /// The runs still to be answered: the run (or its retry), and the runs its outcome started.
        var pending: Set<UInt64> = []

        init(reply: ControlReply, follows: Bool, streams: Bool) {
            self.reply = reply
            self.follows = follows
            self.streams = streams
        }
    }

    private var byRun: [UInt64: Waiter] = [:]
    /// Clients waiting for a job's runs to end after `jobctl stop --wait`, by job.
    private var stopsByJob: [String: [ControlReply]] = [:]
    let taps: RunOutputTaps

    init(taps: RunOutputTaps) {
        self.taps = taps
    }

    var isEmpty: Bool { byRun.isEmpty }

    /// `reply` waits for run `runID`; with `streams`, it gets the run's output lines too
    /// (registered before the run starts, so that no line is missed).
    mutating func add(runID: UInt64, reply: ControlReply, follows: Bool, streams: Bool) {
        let waiter = Waiter(reply: reply, follows: follows, streams: streams)
        follow(runID, by: waiter)
    }

    private mutating func follow(_ runID: UInt64, by waiter: Waiter, output: Bool = true) {
        waiter.pending.insert(runID)
        byRun[runID] = waiter
        if waiter.streams, output {
            let reply = waiter.reply
            taps.add(runID: runID) { line, standardOutput in reply.sendOutput(line, standardOutput: standardOutput) }
        }
    }

    /// A run ended as `outcome`, and the admission answered `ended`: who waits hears how (as the
    /// wire's `RunReport`) and of the retry the failure was given, and a waiter that follows the
    /// run waits on for the retry, or for the runs the outcome started (or queued).
    mutating func ended(_ outcome: RunOutcome, as ended: RunAdmission.Ended) {
        guard let waiter = byRun.removeValue(forKey: outcome.runID) else { return }
        let runID = outcome.runID
        var report = RunReport(outcome)
        if let retry = ended.retry {
            report.retryRunID = retry.request.runID
            report.retryAttempt = retry.request.attempt
            report.retryLimit = retry.limit
            report.retryDelayUSec = retry.delay.microseconds
        }
        taps.remove(runID: runID)
        waiter.pending.remove(runID)
        let response = ControlResponse(type: .runFinished, run: report)
        guard waiter.follows else {
            waiter.reply.finish(with: response)
            return
        }
        if let retry = ended.retry {
            follow(retry.request.runID, by: waiter)
        } else {
            // The runs the final attempt started are followed to their ends, their output not shown.
            for run in ended.started where run.triggeredBy?.invocationID == outcome.invocationID {
                follow(run.runID, by: waiter, output: false)
            }
        }
        waiter.reply.send(response)
        if waiter.pending.isEmpty { waiter.reply.finish() }
    }

    /// `request` will not run (skipped, dropped, a retry cancelled): its waiter hears why.
    mutating func skipped(_ request: RunRequest, reason: String) {
        guard let waiter = byRun.removeValue(forKey: request.runID) else { return }
        taps.remove(runID: request.runID)
        waiter.pending.remove(request.runID)
        let response = ControlResponse(type: .runSkipped, run: RunReport(job: request.job, runID: request.runID, skipReason: reason))
        if waiter.pending.isEmpty {
            waiter.reply.finish(with: response)
        } else {
            waiter.reply.send(response)
        }
    }

    /// `reply` waits for every run in flight of `job` to end (`jobctl stop --wait`).
    mutating func add(stopOf job: String, reply: ControlReply) {
        stopsByJob[job, default: []].append(reply)
    }

    /// `job` has no run in flight any more: who waited for it to stop hears so.
    mutating func stopped(_ job: String) {
        for waiter in stopsByJob.removeValue(forKey: job) ?? [] {
            waiter.finish(with: ControlResponse(type: .stopFinished, message: "every run of \(job) has ended"))
        }
    }

    /// At shutdown: every waiter hears `response`, once.
    mutating func finishAll(with response: ControlResponse) {
        for waiter in stopsByJob.values.joined() { waiter.finish(with: response) }
        stopsByJob.removeAll()
        var finished = Set<ObjectIdentifier>()
        for (runID, waiter) in byRun {
            taps.remove(runID: runID)
            if finished.insert(ObjectIdentifier(waiter)).inserted { waiter.reply.finish(with: response) }
        }
        byRun.removeAll()
    }
}

extension RunReport {
    /// How a run ended, as `run-finished` says it on the wire: the fields a jobctl of any version
    /// reads, each as the journal's `run.exit` has it.
    init(_ outcome: RunOutcome) {
        let termination = outcome.termination
        self.init(
            job: outcome.job, runID: outcome.runID, exitCode: termination.exitCode, exitStatus: termination.exitStatus,
            shellStatus: termination.shellStatus, succeeded: outcome.succeeded)
        result = outcome.result.rawValue
        invocationID = outcome.invocationID
        reason = termination.startFailure
    }
}

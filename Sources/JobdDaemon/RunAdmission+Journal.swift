import JobdCalendar
import JobdConfig
import JobdHandover
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging

extension RunAdmission.Action {
    /// Says the action in the journal (`run.skip`, `run.wait`, `run.retry`) as `admission`, which
    /// decided it, has it now; a start and a stop are said where they are performed. A user's
    /// entries spend her journal budget (`budget`, her output's): what is over it is counted and
    /// said by `run.entries-dropped`, never written at root's expense (issue 37).
    func log(to logger: Logger, admission: RunAdmission, budget: OutputBudget, now: MonotonicInstant = .now()) {
        guard logger.spends(budget, uid: journaledRequest?.owningUID, now: now) else { return }
        write(to: logger, admission: admission)
    }

    /// The run an entry of this action is about; `nil` for those said elsewhere.
    private var journaledRequest: RunRequest? {
        switch self {
        case .skip(let request, _), .wait(let request, _), .drop(let request, _), .retry(let request, _, _), .cancelRetry(let request, _):
            request
        case .start, .stop, .stopAll:
            nil
        }
    }

    private func write(to logger: Logger, admission: RunAdmission) {
        switch self {
        case .skip(let request, let reason):
            logger.event(.runSkip, level: .notice, "\(request.job) was not run (\(request.cause.rawValue)): \(reason)",
                         request.journalFields.merging([JobdField.reason: reason]) { $1 })
        case .wait(let request, .overlap(let replacing)):
            logger.event(.runWait, "run \(request.runID) of \(request.job) waits for the run in flight to end"
                         + (replacing ? ", which is being stopped (Overlap=replace)" : " (Overlap=queue)"),
                         request.journalFields.merging([JobdField.reason: "overlap"]) { $1 })
        case .wait(let request, .slot):
            let limit = admission.slotLimit == admission.maxConcurrentRuns
                ? "MaxConcurrentRuns=\(admission.maxConcurrentRuns ?? 0)" : "at most \(admission.slotLimit ?? 0) under jobd's RLIMIT_NOFILE"
            logger.event(.runWait, "run \(request.runID) of \(request.job) waits for a free slot (\(limit), \(admission.running) running)",
                         request.journalFields.merging([JobdField.reason: "max-concurrent-runs"]) { $1 })
        case .wait(let request, .userSlot(let uid)):
            let user = admission.definition(of: request.job)?.owningUser.map { "\($0) (uid \(uid))" } ?? "uid \(uid)"
            logger.event(.runWait, "run \(request.runID) of \(request.job) waits for one of \(user)'s runs to end "
                         + "(UserRunsMax=\(admission.generation.settings.userRunsMax ?? 0), \(admission.running(ofUID: uid)) running)",
                         request.journalFields.merging([JobdField.reason: "user-runs-max"]) { $1 })
        case .drop(let request, let reason):
            logger.event(.runSkip, level: .notice, "run \(request.runID) of \(request.job) will not start: \(reason)",
                         request.journalFields.merging([JobdField.reason: reason]) { $1 })
        case .retry(let request, _, let delay):
            let limit = admission.definition(of: request.job)?.restart.limit ?? request.attempt
            logger.event(.runRetry, level: .notice,
                         "\(request.job) failed; retry \(request.attempt) of \(limit) in \(delay) as run \(request.runID)",
                         request.journalFields.merging([JobdField.attempt: "\(request.attempt)/\(limit)"]) { $1 })
        case .cancelRetry(let request, let reason):
            logger.event(.runSkip, level: .notice, "retry \(request.attempt) of \(request.job) cancelled: \(reason)",
                         request.journalFields.merging([JobdField.reason: reason]) { $1 })
        case .start, .stop, .stopAll:
            break
        }
    }
}

extension RunRequest {
    /// The journal fields of every entry of a run that was asked for, whether it starts, waits or
    /// is skipped: its cause where it is not a timer, and the elapse it serves, so that `jobctl why`
    /// can tell each elapse's fate from the journal alone; for a user's job, whose (by uid, as
    /// `jobctl --user logs` selects them: a job's name may have been another account's).
    var journalFields: [String: String] {
        var fields = [JobdField.job: job, JobdField.run: String(runID), JobdField.runID: invocationID]
        if let owningUID { fields[JobdField.jobUID] = String(owningUID) }
        if cause != .timer { fields[JobdField.cause] = cause.rawValue }
        if let elapse = scheduledElapse { fields[JobdField.elapseUSec] = String(elapse.microseconds) }
        if let by = triggeredBy {
            fields[JobdField.triggeredBy] = by.job
            fields[JobdField.triggeredByRunID] = by.invocationID
        }
        return fields
    }

    /// What the run gets in its environment besides its job's: the outcome that started it (for
    /// an `OnFailure=`/`OnSuccess=` run); `JOBD_ELAPSE_USEC`, the scheduled instant a run its
    /// timer started serves (kept by its retries): a job makes its side effects idempotent by it;
    /// and for a fleet run, `JOBD_FENCE`, its claim's fencing token, which grows with every claim.
    func environment(fenceToken: Int64? = nil) -> [String: String] {
        var environment = triggeredBy?.environment ?? [:]
        if let scheduledElapse { environment["JOBD_ELAPSE_USEC"] = String(scheduledElapse.microseconds) }
        if let fenceToken { environment["JOBD_FENCE"] = String(fenceToken) }
        return environment
    }

    /// The journal fields of every entry of the run once it starts: for a fleet run this node
    /// claimed (as `node`), the node too.
    func launchFields(claimedBy node: String?) -> [String: String] {
        var fields = journalFields
        if let node, scheduledElapse != nil { fields[JobdField.node] = node }
        return fields
    }

    /// Whether this run of `definition` must claim its elapse in the fleet before it starts.
    func claims(_ definition: JobDefinition) -> Bool {
        definition.runOn == .oneNode && scheduledElapse != nil
    }
}

extension Logger {
    /// Whether an entry about a run of uid `uid`'s job (`nil`: root's, never counted) may be
    /// written now: it spends her journal budget, her output's (issue 37), so that her requests
    /// cannot make journald suppress root's entries. What is over it is counted, said once when
    /// the first is dropped and by count before her next one logged (`run.entries-dropped`).
    func spends(_ budget: OutputBudget, uid: UInt32?, now: MonotonicInstant) -> Bool {
        guard let uid else { return true }
        let fields = [JobdField.jobUID: String(uid)]
        switch budget.takeEntry(uid: uid, now: now) {
        case .drop:
            return false
        case .dropFirst:
            event(.runEntriesDropped, level: .warning,
                  "uid \(uid)'s entries about its runs (run.skip, run.wait, run.retry, an unmet condition) are over "
                  + "UserLogRateLimitBurst= in UserLogRateLimitIntervalSec= (jobd.conf): the next are counted, not logged", fields)
            return false
        case .log(let dropped):
            if dropped > 0 {
                event(.runEntriesDropped, level: .warning,
                      "\(dropped) of uid \(uid)'s entries about its runs (run.skip, run.wait, run.retry, an unmet condition) "
                      + "were not logged (over its budget)",
                      fields.merging([JobdField.droppedCount: String(dropped)]) { $1 })
            }
            return true
        }
    }

    /// `jobctl disable` (`disabled`) or `enable` of `job` (`job.disable`, `job.enable`).
    func jobDisabled(_ job: String, _ disabled: Bool) {
        event(disabled ? .jobDisable : .jobEnable, level: .notice,
              "\(job) \(disabled ? "disabled: its triggers start no runs" : "enabled: its triggers start runs again")", [JobdField.job: job])
    }

    /// A `Condition…=` of `request`'s job does not hold: the run is skipped (`run.skip`, logged by
    /// the admission's action). For a user's job the note spends her journal budget as the skip does.
    func conditionUnmet(_ condition: UnitCondition, of request: RunRequest, budget: OutputBudget, now: MonotonicInstant = .now()) {
        guard spends(budget, uid: request.owningUID, now: now) else { return }
        let fields = request.journalFields.merging([JobdField.condition: condition.description]) { $1 }
        info("\(request.job): \(condition) does not hold: run \(request.runID) is skipped", metadata: fields.mapValues { .string($0) })
    }

    /// An owner's timer fired (`timer.fire`, at debug priority).
    func timerFired(_ due: DueJob) {
        event(.timerFire, level: .debug, "timer \(due.timerID) of \(due.job) fired", due.journalFields)
    }

    /// A fire of an owner a reload let go meanwhile: nothing runs (`run.skip`, `owner-retired`).
    /// Never budgeted, even for a user's job: the audit proves by it that a late fire was dropped
    /// (a missing one is a finding), and there are at most as many as a reload retires owners.
    func ownerRetired(_ due: DueJob) {
        event(.runSkip, level: .notice, "\(due.job) fell due but was not run: owner-retired",
              due.journalFields.merging([JobdField.reason: "owner-retired"]) { $1 })
    }
}

extension Logger {
    /// `clock.change`: the machine was suspended, or the wall clock set.
    func clockChanged(_ change: ClockOffsets.Change) {
        let accuracy = TimeSpan(microseconds: 1_000)
        let suspended = TimeSpan(microseconds: UInt64(change.suspendedUSec)).description(accuracy: accuracy)
        let jump = TimeSpan(microseconds: change.jumpUSec.magnitude).description(accuracy: accuracy)
        let set = change.jumpUSec == 0 ? "not set" : "set \(change.jumpUSec > 0 ? "forward" : "back") by \(jump)"
        event(.clockChange, level: .notice, "the wall clock changed: \(change.suspendedUSec > 0 ? "suspended for \(suspended), " : "")\(set)",
              [JobdField.suspendedUSec: String(change.suspendedUSec), JobdField.clockJumpUSec: String(change.jumpUSec)])
    }
}

extension DueJob {
    var journalFields: [String: String] {
        [JobdField.job: job, JobdField.owner: String(ownerID), JobdField.generation: String(generation), JobdField.timer: String(timerID)]
    }
}

extension Logger {
    /// `run.abandoned`: a run of an earlier jobd that stopped without recording its end.
    func runAbandoned(_ run: RunInFlightRecord, _ outcome: RunOutcome) {
        var fields = [JobdField.job: run.job, JobdField.runID: run.invocationID, JobdField.result: outcome.result.rawValue,
                      JobdField.cause: run.cause, JobdField.startUSec: String(run.startUSec),
                      JobdField.durationUSec: String(outcome.duration.microseconds)]
        if let uid = run.owningUID { fields[JobdField.jobUID] = String(uid) }
        event(.runAbandoned, level: .warning,
              "run \(run.invocationID) of \(run.job) was abandoned: the jobd that started it stopped without recording its end", fields)
    }
}

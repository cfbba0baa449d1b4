import JobdConfig
import JobdControl
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers

/// A run that was decided on but has not started: it waits for a free slot (`MaxConcurrentRuns=`)
/// or for its job's run in flight to end (`Overlap=queue` or `replace`).
struct WaitingRun {
    var runID: UInt64
    var definition: JobDefinition
    /// When it fell due: waiting runs start in this order.
    var dueAt: MonotonicInstant
}

extension MainLoop {
    /// Acts on what the scheduler decided for a job that fell due (or that `jobctl run` asked for).
    /// Returns the run's id and whether it started at once; `nil` when nothing was started.
    func act(on decision: Scheduler.DueDecision, job: String, fields: [String: String],
             group: inout DiscardingTaskGroup) -> (runID: UInt64, started: Bool)? {
        let now = MonotonicInstant.now()
        switch decision {
        case .run(let definition):
            let runID = JobRunner.makeRunID()
            return (runID, admit(WaitingRun(runID: runID, definition: definition, dueAt: now), group: &group))
        case .skip(let reason):
            logger.event(.runSkip, level: .notice, "\(job) fell due but was not run: \(reason)",
                         fields.merging([JobdField.reason: reason]) { $1 })
            return nil
        case .wait(let stopRunning):
            let runID = JobRunner.makeRunID()
            overlapWaiting[job] = (runID, now)
            logger.event(.runWait, "run \(runID) of \(job) waits for the run in flight to end"
                         + (stopRunning ? ", which is being stopped (Overlap=replace)" : " (Overlap=queue)"),
                         fields.merging([JobdField.run: String(runID), JobdField.reason: "overlap"]) { $1 })
            if stopRunning { runner.registry.stop(job: job, reason: .replaced) }
            return (runID, false)
        }
    }

    /// Starts `run` if a slot is free; otherwise it waits, in the order runs fell due.
    /// Returns whether it started now.
    @discardableResult
    func admit(_ run: WaitingRun, group: inout DiscardingTaskGroup) -> Bool {
        let position = slotWaiting.firstIndex { $0.dueAt > run.dueAt } ?? slotWaiting.endIndex
        slotWaiting.insert(run, at: position)
        startWaitingRuns(group: &group)
        guard slotWaiting.contains(where: { $0.runID == run.runID }) else { return true }
        logger.event(.runWait, "run \(run.runID) of \(run.definition.name) waits for a free slot "
                     + "(MaxConcurrentRuns=\(settings.maxConcurrentRuns ?? 0), \(running) running)", [
            JobdField.job: run.definition.name, JobdField.run: String(run.runID), JobdField.reason: "max-concurrent-runs",
        ])
        notifier.send(.status(status))
        return false
    }

    /// Starts waiting runs while slots are free, and says so in `STATUS=` if it started any.
    func startWaitingRuns(group: inout DiscardingTaskGroup) {
        let before = running
        while !slotWaiting.isEmpty, settings.maxConcurrentRuns.map({ running < $0 }) ?? true {
            let run = slotWaiting.removeFirst()
            running += 1
            let runner = self.runner
            let continuation = self.continuation
            group.addTask {
                let outcome = await runner.run(run.definition, runID: run.runID)
                continuation.yield(.runFinished(outcome))
            }
        }
        if running > before { notifier.send(.status(status)) }
    }

    /// A run ended: answer who waited for it, let the scheduler record it, and start what waited
    /// for it (the job's next run, or any run waiting for a slot).
    func runEnded(_ outcome: RunOutcome, group: inout DiscardingTaskGroup) {
        running -= 1
        runWaiters.removeValue(forKey: outcome.runID)?.finish(with: ControlResponse(type: .runFinished, run: RunReport(
            job: outcome.job, runID: outcome.runID, exitCode: outcome.termination.exitCode,
            exitStatus: outcome.termination.exitStatus, shellStatus: outcome.termination.shellStatus,
            succeeded: outcome.succeeded)))
        let next = scheduler.runFinished(job: outcome.job, outcome: outcome.termination.description, now: outcome.finished)
        if stopping { return }
        if let next {
            let waiting = overlapWaiting.removeValue(forKey: outcome.job)
            admit(WaitingRun(runID: waiting?.runID ?? JobRunner.makeRunID(), definition: next,
                             dueAt: waiting?.dueAt ?? outcome.finished), group: &group)
        } else if scheduler.histories[outcome.job]?.queued != true, let dropped = overlapWaiting.removeValue(forKey: outcome.job) {
            // The job was removed by a reload while its next run waited.
            runWaiters.removeValue(forKey: dropped.runID)?.finish(with: ControlResponse(
                type: .runSkipped, run: RunReport(job: outcome.job, skipReason: "job-removed")))
        }
        startWaitingRuns(group: &group)
    }
}

import JobdConfig
import JobdLogging

extension RunLifecycle {
    /// Takes `event` and returns what to do, in order. An event that does not fit the phase (a
    /// stop asked for after the process ended, the stop's timeout after it exited) changes nothing.
    package mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (.preparing, .assertionsHeld):
            return plan.needsAccount ? [.resolveAccount] : [.readEnvironment]
        case (.preparing, .assertionFailed(let assertion)):
            failedAssertion = true
            return notStarted("\(assertion) does not hold")
        case (.preparing, .accountResolved):
            return [.readEnvironment]
        case (.preparing, .environmentRead):
            phase = .placing
            return [.makeCgroup]
        case (.preparing, .accountFailed(let reason)), (.preparing, .environmentFailed(let reason)),
             (.placing, .cgroupFailed(let reason)), (.placing, .privateTmpFailed(let reason)),
             (.spawning, .spawnFailed(let reason)), (.stopping, .spawnFailed(let reason)):
            return notStarted(reason)
        case (.placing, .cgroupMade(let path)):
            if let path {
                hasCgroup = true
                fields[JobdField.cgroup] = path
            }
            return plan.privateTmp ? [.makePrivateTmp] : spawn()
        case (.placing, .privateTmpMade):
            hasPrivateTmp = true
            return spawn()
        case (.spawning, .spawned(let pid)), (.stopping, .spawned(let pid)):
            self.pid = pid
            if phase == .spawning { phase = .running }
            return [.logStart(pid: pid, fields: fields.merging([JobdField.pid: String(pid)]) { $1 })]
        case (.spawning, .stopRequested(let reason)), (.running, .stopRequested(let reason)):
            stopReason = stopReason ?? reason
            phase = .stopping
            return [.terminate(reason, fields: fields.merging([JobdField.reason: reason.rawValue]) { $1 })]
        case (.stopping, .stopSent):
            return [.armStopTimeout]
        case (.stopping, .endedBeforeStop):
            // Its process exited by itself, as systemd hears a main process's end before a stop it
            // would send: a later stop request is judged afresh.
            stopReason = nil
            phase = .running
            return []
        case (.stopping, .stopTimeoutElapsed):
            return [.kill(fields: fields.merging([JobdField.reason: stopReason?.rawValue ?? ""]) { $1 })]
        case (.running, .exited(let termination)), (.stopping, .exited(let termination)):
            self.termination = termination
            phase = .reaping
            // A process that never ran its command has no fence to ask and left nothing.
            guard pid != nil else { return [.stopWatching] + cleanUp() }
            return [.stopWatching] + (plan.hasFence ? [.checkFence] : [.countLeftovers])
        default:
            return reaping(event)
        }
    }

    /// The steps after the process ended: its fence, its leftovers, its cgroup and directories.
    private mutating func reaping(_ event: Event) -> [Action] {
        guard phase == .reaping else { return [] }
        switch event {
        case .fenceStopped(let endedAt):
            fencedEnd = endedAt
            stopReason = stopReason ?? .leaseLost
            return [.logFenceStop(fields: fields.merging([JobdField.reason: StopReason.leaseLost.rawValue]) { $1 }), .countLeftovers]
        case .fenceHeld:
            return [.countLeftovers]
        case .leftoversCounted(let count):
            leftovers = count
            guard count > 0 else { return cleanUp() }
            let fields = fields.merging([JobdField.leftovers: String(count)]) { $1 }
            guard plan.killMode == .controlGroup else { return [.keepLeftovers(count: count, fields: fields)] + cleanUp() }
            return [.stopLeftovers(count: count, fields: fields)]
        case .leftoversStopped:
            return cleanUp()
        case .cgroupRemoved(let usage, let oomKills):
            // A run that never started has no usage to report.
            self.usage = pid == nil ? nil : usage
            self.oomKills = oomKills
            return cleanedUp()
        case .privateTmpRemoved:
            return cleanedUp()
        case .reaped(let elapsed):
            phase = .done
            return ended(after: elapsed)
        default:
            return []
        }
    }

    /// The run did not start: `reason` is logged as its start, and what was made for it goes.
    private mutating func notStarted(_ reason: String) -> [Action] {
        let watched = phase == .spawning || phase == .stopping
        termination = .failedToStart(reason)
        phase = .reaping
        return (watched ? [.stopWatching] : []) + [.logStartFailure(message: "run \(plan.runID) of \(plan.job) could not start: \(reason)", fields: fields)] + cleanUp()
    }

    private mutating func spawn() -> [Action] {
        phase = .spawning
        return [.spawn, .watch]
    }

    /// The cgroup is removed unless processes `KillMode=process` leaves are in it; `PrivateTmp=`'s
    /// directories go with the run on the same terms. Only then is the run reaped: until then a
    /// stop of jobd must still reach what is left of it.
    private mutating func cleanUp() -> [Action] {
        let keep = leftovers > 0 && plan.killMode != .controlGroup
        var actions: [Action] = []
        if hasCgroup { actions.append(.removeCgroup(keep: keep)) }
        if hasPrivateTmp && !keep { actions.append(.removePrivateTmp) }
        pendingCleanup = actions.count
        return actions.isEmpty ? [.reap] : actions
    }

    private mutating func cleanedUp() -> [Action] {
        pendingCleanup -= 1
        return pendingCleanup == 0 ? [.reap] : []
    }

    /// `run.exit`, the mail if one is due, and the outcome.
    private mutating func ended(after elapsed: TimeSpan) -> [Action] {
        let termination = termination ?? .unknown
        let result = failedAssertion ? .assert
            : RunOutcome.result(of: termination, stopReason: stopReason, ignoresFailure: plan.ignoresFailure,
                                success: plan.success, oomKilled: oomKills > 0)
        fields[JobdField.exitCode] = termination.exitCode
        fields[JobdField.exitStatus] = termination.exitStatus
        fields[JobdField.durationUSec] = String(elapsed.microseconds)
        fields[JobdField.result] = result.rawValue
        if leftovers > 0 { fields[JobdField.leftovers] = String(leftovers) }
        if let stopReason { fields[JobdField.reason] = stopReason.rawValue }
        if let pid { fields[JobdField.pid] = String(pid) }
        if let usage { fields.merge(usage.fields) { $1 } }
        let message = "run \(plan.runID) of \(plan.job) \(termination) after \(elapsed.description(accuracy: TimeSpan(microseconds: 1_000))): \(result.rawValue)"
            + (stopReason.map { " (stopped: \($0.rawValue))" } ?? "") + (usage.map { ". \($0.summary)" } ?? "")
        let outcome = RunOutcome(runID: plan.runID, invocationID: plan.invocationID, job: plan.job, termination: termination, result: result,
                                 duration: elapsed, stopReason: stopReason, fencedEnd: fencedEnd)
        var actions: [Action] = [.logExit(message: message, fields: fields, failure: result.isFailure)]
        if isMailDue(result) { actions.append(.mail(result: result, fields: fields)) }
        return actions + [.finish(outcome)]
    }

    /// Whether the run's output may be mailed (`MailTo=`, `MailOn=`): whether it wrote anything,
    /// which `MailOn=output` also asks, only its output can tell.
    private func isMailDue(_ result: RunResult) -> Bool {
        !plan.mailTo.isEmpty && (plan.mailOn != .failure || result.isFailure)
    }
}

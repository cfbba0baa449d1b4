import Glibc
import JobdConfig
import JobdControl
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
import SystemdKit

extension MainLoop {
    /// Answers a control request. Queries are answered from the loop's own state; `run` and
    /// `watch-reload` keep the reply until what they wait for happens.
    func handleControl(_ request: ControlRequest, reply: ControlReply, group: inout DiscardingTaskGroup) {
        guard !stopping else {
            reply.finish(with: .error("jobd is stopping"))
            return
        }
        switch request.command {
        case .status:
            if let name = request.job {
                guard let job = jobStatus(name) else {
                    reply.finish(with: .error("no such job: \(name)"))
                    return
                }
                reply.finish(with: ControlResponse(type: .job, jobStatus: job))
            } else {
                reply.finish(with: ControlResponse(type: .status, daemon: daemonStatus))
            }
        case .list:
            let names = Set(scheduler.generation.owners.keys).union(broken.keys)
            let jobs = names.compactMap(jobStatus).sorted {
                ($0.nextElapseUSec ?? .max, $0.name) < ($1.nextElapseUSec ?? .max, $1.name)
            }
            reply.finish(with: ControlResponse(type: .list, jobs: jobs))
        case .run:
            guard let name = request.job else {
                reply.finish(with: .error("run needs a job"))
                return
            }
            guard admission.definition(of: name) != nil else {
                let why = broken[name].map { ": its file has errors (\($0.errors[0].description))" } ?? ""
                reply.finish(with: .error("no such job: \(name)\(why)"))
                return
            }
            let (run, actions) = admission.manualRun(job: name, now: .now())
            let started = actions.contains(.start(run))
            let queued = actions.contains { if case .wait(let waiting, _) = $0 { waiting == run } else { false } }
            let skipped = actions.lazy.compactMap { if case .skip(let skip, let reason) = $0, skip == run { reason } else { nil } }.first
            if request.wait == true, started || queued {
                runWaiters[run.runID] = reply
                // Registered before the run starts (perform below), so that no line is missed.
                if request.streamsOutput {
                    runner.outputTaps.add(runID: run.runID) { line, standardOutput in
                        reply.sendOutput(line, standardOutput: standardOutput)
                    }
                }
            }
            perform(actions, group: &group)
            if let skipped {
                reply.finish(with: ControlResponse(type: .runSkipped, run: RunReport(job: name, skipReason: skipped)))
                return
            }
            reply.send(ControlResponse(type: started ? .runStarted : .runQueued, run: RunReport(job: name, runID: run.runID)))
            if request.wait != true { reply.finish() }
        case .stop:
            guard let name = request.job else { return reply.finish(with: .error("stop needs a job")) }
            let inFlight = admission.runsInFlight(of: name).count
            guard admission.definition(of: name) != nil || inFlight > 0 else {
                return reply.finish(with: .error("no such job: \(name)"))
            }
            perform(admission.stop(job: name), group: &group)
            reply.send(ControlResponse(type: .stopRequested, message: inFlight == 0
                ? "\(name) has no run in flight" : "\(inFlight) run(s) of \(name) asked to stop"))
            if request.wait == true, inFlight > 0 {
                stopWaiters[name, default: []].append(reply)
            } else {
                reply.finish()
            }
        case .disable, .enable:
            guard let name = request.job else { return reply.finish(with: .error("\(request.command.rawValue) needs a job")) }
            guard admission.definition(of: name) != nil else { return reply.finish(with: .error("no such job: \(name)")) }
            let disable = request.command == .disable
            perform(admission.setDisabled(name, disable), group: &group)
            state.setDisabled(name, disable)
            logger.event(disable ? .jobDisable : .jobEnable, level: .notice,
                         "\(name) \(disable ? "disabled: its triggers start no runs" : "enabled: its triggers start runs again")",
                         [JobdField.job: name])
            notifier.send(.status(status))
            reply.finish(with: ControlResponse(type: disable ? .jobDisabled : .jobEnabled, jobStatus: jobStatus(name)))
        case .watchReload:
            reply.send(ControlResponse(type: .reloadSubscribed, reload: lastReload ?? ReloadReport(
                sequence: reloadSequence, accepted: true, generation: scheduler.generation.number)))
            watchReload(reply)
        }
    }

    var daemonStatus: DaemonStatus {
        var status = DaemonStatus(
            pid: getpid(), instance: options.instance, generation: scheduler.generation.number,
            startedRealtimeUSec: startedRealtimeUSec, jobs: scheduler.generation.owners.count,
            liveOwners: JobOwner.liveCount, liveTimers: scheduler.queue.statistics.liveTimers,
            armedTimers: scheduler.queue.armedCount, runningJobs: admission.running, lastReload: lastReload,
            retiredOwnersAlive: scheduler.leakDetector?.retiredAlive ?? 0, leakedOwners: scheduler.leakDetector?.leaked ?? 0)
        let brokenFiles = settingsErrors.prefix(1).map(\.description) + broken.values.sorted { $0.name < $1.name }.map { $0.errors[0].description }
        status.brokenFiles = brokenFiles.isEmpty ? nil : brokenFiles
        return status
    }

    func jobStatus(_ name: String) -> JobStatus? {
        let owner = scheduler.generation.owners[name]
        let broken = self.broken[name]
        guard owner != nil || broken != nil else { return nil }
        let history = scheduler.histories[name] ?? JobHistory()
        let definition = owner?.definition
        var status = JobStatus(
            name: name, file: definition?.path ?? broken?.path ?? "", description: definition?.description,
            command: definition?.command.text ?? "", triggers: definition?.triggers.map(\.description) ?? [],
            nextElapseUSec: owner?.timer.deadline.map(WallClock.usec(of:)),
            lastTriggerUSec: history.lastTrigger.map(WallClock.usec(of:)),
            lastStartUSec: history.lastStart.map(WallClock.usec(of:)),
            lastFinishUSec: history.lastFinish.map(WallClock.usec(of:)),
            lastOutcome: history.lastRun?.outcome, running: admission.runsInFlight(of: name).count,
            owner: owner?.id ?? 0, generation: owner?.generation ?? 0)
        status.lastResult = history.lastRun?.result.rawValue
        status.lastExitStatus = history.lastRun?.exitStatus
        status.lastDurationUSec = history.lastRun?.duration.microseconds
        status.lastRunID = history.lastRun?.invocationID
        status.lastStartCause = history.lastStartCause
        status.lastNode = fleetLastNode[name]
        let runs = admission.runsInFlight(of: name).map { run in
            JobStatus.RunInFlight(
                runID: run.request.runID, invocationID: run.request.invocationID,
                pid: runner.registry.pid(of: run.request.runID), startedUSec: WallClock.usec(of: run.startedAt),
                cause: run.request.cause.rawValue)
        }
        status.runs = runs.isEmpty ? nil : runs
        status.retryUSec = admission.pendingRetry(of: name).map { WallClock.usec(of: $0.at) }
        status.errors = broken?.errors.map(\.description)
        status.disabled = admission.disabled.contains(name) ? true : nil
        return status
    }
}

import Glibc
import JobdConfig
import JobdControl
import JobdLogging
import JobdScheduler

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
            let jobs = scheduler.generation.owners.keys.compactMap(jobStatus).sorted {
                ($0.nextElapseUSec ?? .max, $0.name) < ($1.nextElapseUSec ?? .max, $1.name)
            }
            reply.finish(with: ControlResponse(type: .list, jobs: jobs))
        case .run:
            guard let name = request.job else {
                reply.finish(with: .error("run needs a job"))
                return
            }
            guard let decision = scheduler.manualRun(job: name) else {
                reply.finish(with: .error("no such job: \(name)"))
                return
            }
            switch act(on: decision, job: name, fields: [JobdField.job: name], group: &group) {
            case nil:
                let reason = if case .skip(let reason) = decision { reason } else { "not started" }
                reply.finish(with: ControlResponse(type: .runSkipped, run: RunReport(job: name, skipReason: reason)))
            case let (runID, started)?:
                reply.send(ControlResponse(type: started ? .runStarted : .runQueued, run: RunReport(job: name, runID: runID)))
                if request.wait == true {
                    runWaiters[runID] = reply
                } else {
                    reply.finish()
                }
            }
        case .watchReload:
            reply.send(ControlResponse(type: .reloadSubscribed, reload: lastReload ?? ReloadReport(
                sequence: reloadSequence, accepted: true, generation: scheduler.generation.number)))
            reloadWatchers.append(reply)
        }
    }

    var daemonStatus: DaemonStatus {
        DaemonStatus(
            pid: getpid(), instance: options.instance, generation: scheduler.generation.number,
            startedRealtimeUSec: startedRealtimeUSec, jobs: scheduler.generation.owners.count,
            liveOwners: JobOwner.liveCount, liveTimers: scheduler.queue.statistics.liveTimers,
            armedTimers: scheduler.queue.armedCount, runningJobs: running, lastReload: lastReload,
            retiredOwnersAlive: scheduler.leakDetector?.retiredAlive ?? 0, leakedOwners: scheduler.leakDetector?.leaked ?? 0)
    }

    func jobStatus(_ name: String) -> JobStatus? {
        guard let owner = scheduler.generation.owners[name] else { return nil }
        let history = scheduler.histories[name] ?? JobHistory()
        let definition = owner.definition
        return JobStatus(
            name: name, file: definition.path, description: definition.description,
            command: definition.command.text, triggers: definition.triggers.map(\.description),
            nextElapseUSec: owner.timer.deadline.map(WallClock.usec(of:)),
            lastTriggerUSec: history.lastTrigger.map(WallClock.usec(of:)),
            lastStartUSec: history.lastStart.map(WallClock.usec(of:)),
            lastFinishUSec: history.lastFinish.map(WallClock.usec(of:)),
            lastOutcome: history.lastOutcome, running: history.running, owner: owner.id,
            generation: owner.generation)
    }
}

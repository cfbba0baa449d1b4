import Glibc
import JobdCalendar
import JobdConfig
import JobdPolicy
import JobdControl
import JobdFleet
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
import SystemdKit

extension MainLoop {
    /// Answers a control request. Queries are answered from the loop's own state; `run` and
    /// `watch-reload` keep the reply until what they wait for happens.
    func handleControl(_ request: ControlRequest, reply: ControlReply) {
        guard !stopping else { return reply.finish(with: .error("jobd is stopping")) }
        // Decided on the connection's thread against the generation published then; decided again
        // here against the loop's own where it matters: a reload in between may have changed a
        // job's owner, and a user's list shows their own jobs. users.allow and users.deny were read
        // there, as the loop reads no file; a user's `user-save` waits for its reload as a
        // `watch-reload` the loop is given on the user's behalf.
        var ownJobsOf: uid_t?
        if let peer = reply.peer, request.job != nil || request.command == .list {
            let snapshot = ControlAuthorizer.Snapshot(
                generation: generation, access: UserAccessList(allowed: nil, denied: nil), readersGroup: RuntimeFiles.readersGroupName)
            switch ControlAuthorizer.decide(request, from: peer, in: snapshot) {
            case .refuse(let reason): return reply.finish(with: .error(reason, code: .permissionDenied))
            case .allowOwnJobsOf(let uid): ownJobsOf = uid
            case .allow: break
            }
        }
        if let refusal = request.refusal(in: generation, inFlight: { !admission.runsInFlight(of: $0).isEmpty }) {
            return reply.finish(with: refusal)
        }
        let name = request.job ?? ""
        switch request.command {
        case .status:
            if let name = request.job {
                guard let job = jobStatus(name, for: reply.peer) else {
                    reply.finish(with: .error("no such job: \(name)"))
                    return
                }
                reply.finish(with: ControlResponse(type: .job, jobStatus: job))
            } else {
                reply.finish(with: ControlResponse(type: .status, daemon: daemonStatus(for: reply.peer)))
            }
        case .list:
            let listing = JobListing(statusView, owners: scheduler.generation.owners, brief: request.brief == true, peer: reply.peer,
                                     onlyJobsOf: ownJobsOf)
            reply.finish { listing.jsonLine() }
        case .run:
            let run = admission.manualRun(job: name, now: now)
            if request.wait == true, run.fate == .started || run.fate == .queued {
                // Registered before the run starts (perform below), so that no line is missed.
                runWaiters.add(runID: run.request.runID, reply: reply, follows: request.followRetries == true, streams: request.streamsOutput)
            }
            // Answered before the run starts: the runner's threads send its output, and jobctl reads the first reply as its start.
            if case .skipped(let reason) = run.fate {
                perform(run.actions)
                return reply.finish(with: ControlResponse(type: .runSkipped, run: RunReport(job: name, skipReason: reason)))
            }
            reply.send(ControlResponse(type: run.fate == .started ? .runStarted : .runQueued, run: RunReport(job: name, runID: run.request.runID)))
            if request.wait != true { reply.finish() }
            perform(run.actions)
        case .stop:
            let inFlight = admission.runsInFlight(of: name).count
            perform(admission.stop(job: name))
            reply.send(ControlResponse(type: .stopRequested, message: inFlight == 0
                ? "\(name) has no run in flight" : "\(inFlight) run(s) of \(name) asked to stop"))
            if request.wait == true, inFlight > 0 {
                runWaiters.add(stopOf: name, reply: reply)
            } else {
                reply.finish()
            }
        case .disable, .enable:
            let disable = request.command == .disable
            perform(admission.setDisabled(name, disable))
            context.store.setDisabled(name, disable)
            logger.jobDisabled(name, disable)
            statusChanged()
            reply.finish(with: ControlResponse(type: disable ? .jobDisabled : .jobEnabled, jobStatus: jobStatus(name)))
        case .userFile, .userSave, .logs, .crontabList, .crontabInstall, .crontabRemove:
            // Answered on the connection's thread (UserRequests, CrontabRequests); never the loop's.
            reply.finish(with: .error("\(request.command.rawValue) is not answered here"))
        case .plan:
            answerPlan(request, reply: reply)
        case .reloadPreview:
            // Read off the loop as a reload reads, from the same cache, whose update is dropped.
            let post = context.post
            context.configuration.read(using: reloads.jobFiles) { configuration, _ in post(.previewRead(configuration, reply)) }
        case .watchReload:
            reply.send(ControlResponse(type: .reloadSubscribed, reload: reloads.subscribed(generation: scheduler.generation.number)))
            reloads.subscribe(reply)
        }
    }

    /// jobd's status, as `peer` may see it.
    func daemonStatus(for peer: ControlPeer? = nil) -> DaemonStatus {
        DaemonStatus(scheduler: scheduler, running: admission.running, generation: generation, lastReload: reloads.last,
                     instance: options.instance, startedRealtimeUSec: startedRealtimeUSec, for: peer)
    }

    func jobStatus(_ name: String, for peer: ControlPeer? = nil) -> JobStatus? {
        statusView.status(of: name, owner: scheduler.generation.owners[name], for: peer)
    }

    /// What statuses are made of, taken from the loop at once.
    var statusView: StatusView {
        StatusView(histories: scheduler.histories, broken: generation.broken, admission: admission, lastNodes: fleetStatus.lastNode,
                   launcher: context.launcher, clocks: context.clocks)
    }
}

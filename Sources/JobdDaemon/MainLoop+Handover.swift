import Glibc
import JobdCalendar
import JobdConfig
import JobdHandover
import JobdLogging
import JobdProcess
import JobdRunner
import JobdScheduler
import JobdState
import JobdTimers
import Logging

extension MainLoop {
    /// Leaves every run in flight running for the next jobd (issue 36): its record in the state
    /// directory gets its process (pid and start time), cgroup and the start of a line on each pipe;
    /// its pipes go to systemd's file descriptor store. Logs `run.handover` for each and
    /// `jobd.handover`.
    func handOverRuns() {
        let handed = context.launcher.handOver()
        let inFlight = admission.runsInFlightByID
        for run in handed {
            guard let running = inFlight[run.runID] else { continue }
            let request = running.request
            let pid = run.process.pid
            let handedOver = HandedOverRun(cgroup: run.cgroup, pendingOutput: run.pendingOutput, pendingError: run.pendingError)
            context.store.runStarted(record(of: running, pid: pid, handedOver: handedOver))
            if run.process.standardOutput >= 0 {
                context.storeDescriptor(run.process.standardOutput, HandedOverRun.outputName(request.invocationID))
            }
            if run.process.standardError >= 0 {
                context.storeDescriptor(run.process.standardError, HandedOverRun.errorName(request.invocationID))
            }
            logger.event(.runHandover, "run \(request.invocationID) of \(request.job) (pid \(pid)) left running for the next jobd", [
                JobdField.job: request.job, JobdField.run: String(request.runID), JobdField.runID: request.invocationID,
                JobdField.pid: String(pid),
            ])
        }
        logger.event(.daemonHandover, "jobd handed \(handed.count) run(s) over to the next jobd and exits",
                     [JobdField.runCount: String(handed.count)])
        // As at a stop: `jobctl audit` reads the instance as ended cleanly, every owner released.
        logger.event(.daemonExit, "jobd stopped for a restart: \(handed.count) run(s) handed over, "
                     + "\(scheduler.liveOwners) owner(s) in the generation", [:])
    }

    /// The record of a run in flight, with its process (pid and start time) and what `handedOver` adds.
    private func record(of running: RunAdmission.RunInFlight, pid: Int32, handedOver: HandedOverRun) -> RunInFlightRecord {
        let request = running.request
        let age = Int64((now.nanoseconds &- running.startedAt.nanoseconds) / 1_000)
        return RunInFlightRecord(
            invocationID: request.invocationID, job: request.job, cause: request.cause.rawValue, startUSec: wallNowUSec - age,
            owningUID: request.owningUID, process: context.processStartTicks(pid).map { ProcessIdentity(pid: pid, startTicks: $0) }, handedOver: handedOver,
            claim: heldClaim(of: request))
    }

    /// At start: each run an earlier jobd kept as in flight is adopted when its process lives on
    /// (or ended with the end jobd-keeper kept), and followed to its real end as any run; the others
    /// are recorded as abandoned (`run.abandoned`, the job's history and metrics, its `OnFailure=`).
    /// A fleet run adopted keeps its claim and its fence; the claim of one abandoned is ended
    /// (``ClaimCarryOver``).
    func adoptRuns() {
        var stored = context.takeStoredDescriptors()
        var followed: Set<Int32> = []
        var runs: [(record: RunInFlightRecord, followed: Bool)] = []
        defer {
            for descriptor in stored.values { _ = Glibc.close(descriptor) }
            context.forgetKeeperRecords(followed)
            carryOverClaims(runs)
        }
        for record in context.store.abandonedRuns() {
            let output = stored.removeValue(forKey: HandedOverRun.outputName(record.invocationID)) ?? -1
            let error = stored.removeValue(forKey: HandedOverRun.errorName(record.invocationID)) ?? -1
            let ended = record.process.flatMap { context.keeperRecord($0) }.map { [$0] } ?? []
            let live = record.process.flatMap { context.processStartTicks($0.pid) }
            let decision = Adoption.decide(record: record, ended: ended, liveStartTicks: live)
            // Only a claim of this node's is this jobd's to renew; another's run is followed as any.
            let claim = record.claim.flatMap { $0.node == fleet?.settings.node ? $0 : nil }
            guard decision != .abandon, let process = record.process, let definition = admission.definition(of: record.job),
                  let request = admission.adopt(job: record.job, invocationID: record.invocationID,
                                                cause: RunRequest.Cause(rawValue: record.cause) ?? .timer, attempt: claim?.attempt ?? 0,
                                                scheduledElapse: claim.map { RealtimeInstant(microseconds: $0.elapseUSec) }, now: now) else {
                for descriptor in [output, error] where descriptor >= 0 { _ = Glibc.close(descriptor) }
                recordAbandoned(record)
                runs.append((record, false))
                continue
            }
            runs.append((record, true))
            followed.insert(process.pid)
            let keeperEnd = context.keeperEnd
            let end: @Sendable () async -> RunTermination = switch decision {
            case .finish(let termination): { termination }
            default: { await keeperEnd(process) }
            }
            let handed = record.handedOver
            let cgroup = handed.cgroupDirectory.flatMap { directory in
                handed.cgroupPath.map { RunCgroup(directory: directory, path: $0, legacy: handed.cgroupLegacy) }
            }
            let running = if case .follow = decision { true } else { false }
            let adopted = AdoptedProcess(pid: process.pid, isRunning: running, standardOutput: output, standardError: error, pendingOutput: handed.pendingOutput,
                                         pendingError: handed.pendingError, cgroup: cgroup, end: end)
            scheduler.runStarted(job: request.job, cause: request.cause.rawValue, now: now)
            let (post, clock) = (context.post, context.clocks.monotonic)
            context.launcher.adopt(definition, as: request, adopted: adopted, fields: request.launchFields(claimedBy: claim?.node),
                                   sendmail: settings.sendmail, fence: claim.flatMap { _ in fleet?.fence(ofRun: request.invocationID) }) {
                post(.runFinished($0, finished: clock()))
            }
        }
    }

    /// The fleet claims and fences the earlier jobd left: kept for the runs this one follows, ended
    /// for the others; a claim this jobd cannot renew (another `Node=`, no `[Fleet]`) is said in the
    /// journal, and its run's fence fires.
    private func carryOverClaims(_ runs: [(record: RunInFlightRecord, followed: Bool)]) {
        guard runs.contains(where: { $0.record.claim != nil }) || fleet != nil else { return }
        let decision = ClaimCarryOver.decide(runs: runs, node: fleet?.settings.node, fences: fleet?.leftFences() ?? [])
        for (runID, claim) in decision.unreachable.sorted(by: { $0.key < $1.key }) {
            let job = runs.first { $0.record.invocationID == runID }?.record.job ?? "?"
            logger.warning("fleet: run \(runID) of \(job) holds a claim of node \(claim.node), which this jobd cannot renew: its fence stops it",
                           metadata: ["JOB": .string(job), "JOBD_RUN_ID": .string(runID), "JOBD_REASON": .string("lease-lost")])
        }
        let jobs = Dictionary(runs.map { ($0.record.invocationID, $0.record.job) }) { first, _ in first }
        fleet?.carryOver(decision, jobs: jobs, result: RunResult.abandoned.rawValue)
    }

    /// The fleet claim a run of this node holds: a one-node job's timer run (or retry) that started
    /// holds its elapse's claim (it starts only once claimed).
    func heldClaim(of request: RunRequest) -> HeldClaim? {
        guard let node = fleet?.settings.node, let elapse = request.scheduledElapse,
              let definition = admission.definition(of: request.job), request.claims(definition) else { return nil }
        return HeldClaim(node: node, elapseUSec: elapse.microseconds, attempt: request.attempt)
    }

    /// A run nobody can follow: recorded as abandoned at once.
    private func recordAbandoned(_ run: RunInFlightRecord) {
        let outcome = run.outcome(nowUSec: wallNowUSec)
        logger.runAbandoned(run, outcome)
        if admission.definition(of: run.job) != nil {
            scheduler.runFinished(outcome, now: now)
            context.store.saveHistory(of: run.job, scheduler.histories[run.job])
        }
        context.store.runEnded(run.invocationID)
        perform(admission.abandoned(outcome, now: now))
    }
}

import Glibc
import JobdConfig
import JobdLogging
import JobdTimers
import Logging

extension JobRunner {
    /// The steps after the process ended, or never started, that answer at once.
    func end(_ action: RunLifecycle.Action, of run: RunInProgress, lifecycle: RunLifecycle) -> [RunLifecycle.Event] {
        let definition = run.definition
        let group = lifecycle.pid ?? 0
        switch action {
        case .checkFence:
            guard let fence = run.fence else { return [.fenceHeld] }
            let stopped = driver.fenceStopped(fence)
            return [stopped.stopped ? .fenceStopped(endedAt: stopped.ended) : .fenceHeld]
        case .logFenceStop(let fields):
            logger.event(.runStop, level: .warning,
                         "run \(lifecycle.plan.runID) of \(definition.name) was stopped by its fence: this node no longer held its fleet lease", fields)
        case .countLeftovers:
            return [.leftoversCounted(driver.countLeftovers(group: group, cgroup: run.cgroup))]
        case .keepLeftovers(let count, let fields):
            logger.event(.runLeftovers, level: .notice, "\(definition.name) left \(count) process(es) running (KillMode=process)", fields)
        case .removeCgroup(let keep):
            guard let cgroup = run.cgroup else { return [.cgroupRemoved(usage: nil, oomKills: 0)] }
            let removed = driver.removeCgroup(cgroup, keep: keep)
            return [.cgroupRemoved(usage: removed.usage, oomKills: removed.oomKills)]
        case .reap:
            // Only now is the run forgotten; until then a stop must still be able to signal it.
            registry.remove(runID: lifecycle.plan.runID)
            let elapsed = driver.now().duration(since: run.started)
            return [.reaped(elapsed: TimeSpan(microseconds: UInt64(max(0, elapsed.nanosecondsSaturated / 1_000))))]
        case .logExit(let message, let fields, let failure):
            logger.event(.runExit, level: failure ? .warning : .info, message, fields)
        case .mail(let result, let fields):
            run.mail = run.mailed.flatMap { RunMail.due(definition, result: result, output: $0, account: run.account, fields: fields) }
        case .finish(let outcome):
            run.outcome = outcome
        default:
            break
        }
        return []
    }

    /// As systemd stops what is left of a service: `cgroup.kill` for a cgroup, then SIGKILL after `TimeoutStopSec=`.
    @inline(never)
    func stopLeftovers(count: Int, fields: [String: String], of run: RunInProgress) async -> [RunLifecycle.Event] {
        let (definition, group, grace) = (run.definition, run.lifecycle.pid ?? 0, registry.bounded(run.definition.stopTimeout))
        logLeftovers(count, of: definition, grace: grace, inCgroup: run.cgroup != nil, fields: fields)
        if await !driver.terminateLeftovers(group: group, cgroup: run.cgroup, grace: grace) {
            logLeftoversKilled(of: definition, grace: grace, fields: fields)
            await driver.killLeftovers(group: group, cgroup: run.cgroup)
        }
        return [.leftoversStopped]
    }

    @inline(never)
    private func logLeftovers(_ count: Int, of definition: JobDefinition, grace: TimeSpan, inCgroup: Bool, fields: [String: String]) {
        let target = inCgroup ? "its cgroup" : "its process group"
        logger.event(.runLeftovers, level: .warning,
                     "\(definition.name) left \(count) process(es) behind: SIGTERM to \(target), SIGKILL after TimeoutStopSec=\(grace)", fields)
    }

    @inline(never)
    private func logLeftoversKilled(of definition: JobDefinition, grace: TimeSpan, fields: [String: String]) {
        logger.event(.runKill, level: .warning, "\(definition.name)'s leftovers still running \(grace) after SIGTERM: SIGKILL", fields)
    }

    /// `PrivateTmp=`'s directories go once the run is over.
    @inline(never)
    func removePrivateTmp(of run: RunInProgress) async -> [RunLifecycle.Event] {
        if let privateTmp = run.privateTmp, let failure = await driver.removePrivateTmp(privateTmp) {
            logPrivateTmpKept(privateTmp, of: run.definition, failure: failure)
        }
        return [.privateTmpRemoved]
    }

    @inline(never)
    private func logPrivateTmpKept(_ privateTmp: PrivateTmp, of definition: JobDefinition, failure: String) {
        logger.warning("\(definition.name): PrivateTmp='s directories \(privateTmp.tmp) and \(privateTmp.varTmp) are not removed: \(failure)",
                       metadata: [JobdField.job: .string(definition.name)])
    }
}

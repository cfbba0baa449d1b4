import Glibc
import JobdConfig
import JobdLogging
import JobdTimers
import Logging

extension JobRunner {
    /// Performs one of the lifecycle's actions; returns the events that came of it at once (the
    /// others come through the run's stream, from tasks of `group`).
    func perform(
        _ action: RunLifecycle.Action, of run: inout RunInProgress, lifecycle: RunLifecycle, group: inout TaskGroup<Void>
    ) async -> [RunLifecycle.Event] {
        if let adopted = run.adopted, let events = adopt(action, adopted, of: &run, lifecycle: lifecycle, group: &group) { return events }
        switch action {
        case .checkAssertions, .resolveAccount, .readEnvironment, .makeCgroup, .makePrivateTmp:
            return await prepare(action, of: &run, lifecycle: lifecycle)
        case .spawn:
            spawn(&run, lifecycle: lifecycle, group: &group)
        case .watch:
            let (ended, end) = AsyncStream.makeStream(of: Void.self)
            run.endWatch = end
            let (definition, cgroup, requests, inbox) = (run.definition, run.cgroup, run.requests, run.inbox)
            group.addTask { [self] in
                if let reason = await watch(definition, cgroup: cgroup, requests: requests, until: ended) {
                    inbox?.yield(RunInProgress.Posted(event: .stopRequested(reason)))
                }
            }
        case .stopWatching:
            run.stopWatching()
        case .logStart(let pid, let fields):
            logger.event(.runStart, "run \(lifecycle.plan.runID) of \(run.definition.name) started: \(run.definition.command.text)", fields)
            spawned?(run.definition.name, lifecycle.plan.runID, pid)
        case .logStartFailure(let message, let fields):
            logger.event(.runStart, level: .error, message, fields)
        case .terminate(let reason, let fields):
            run.stopGrace = registry.bounded(run.definition.stopTimeout)
            logStop(reason, of: run.definition, runID: lifecycle.plan.runID, grace: run.stopGrace, fields: fields)
            driver.signal(runID: lifecycle.plan.runID, SIGTERM)
        case .armStopTimeout:
            guard !run.stopGrace.isInfinite else { break }
            let (grace, inbox, driver) = (run.stopGrace, run.inbox, driver)
            group.addTask {
                do { try await driver.sleep(for: grace) } catch { return }
                inbox?.yield(RunInProgress.Posted(event: .stopTimeoutElapsed))
            }
        case .kill(let fields):
            logger.event(.runKill, level: .warning,
                         "run \(lifecycle.plan.runID) of \(run.definition.name) still running \(run.stopGrace) after SIGTERM: SIGKILL", fields)
            driver.signal(runID: lifecycle.plan.runID, SIGKILL)
        default:
            return await end(action, of: &run, lifecycle: lifecycle)
        }
        return []
    }

    /// The steps before the process: each answers at once.
    private func prepare(_ action: RunLifecycle.Action, of run: inout RunInProgress, lifecycle: RunLifecycle) async -> [RunLifecycle.Event] {
        let definition = run.definition
        switch action {
        case .checkAssertions:
            // An Assert…= that does not hold fails the run before anything of it starts (result `assert`).
            return [driver.host.failing(definition, assertions: true).map { .assertionFailed(String(describing: $0)) } ?? .assertionsHeld]
        case .resolveAccount:
            switch await driver.resolveAccount(definition) {
            case .success(let account): run.account = account; return [.accountResolved]
            case .failure(let error): return [.accountFailed(error.description)]
            }
        case .readEnvironment:
            switch await driver.prepare(definition, account: run.account, runID: lifecycle.plan.runID,
                                        invocationID: lifecycle.plan.invocationID, context: run.context) {
            case .success(let configuration): run.configuration = configuration; return [.environmentRead]
            case .failure(let error): return [.environmentFailed(error.description)]
            }
        case .makeCgroup:
            switch driver.makeCgroup(definition, runID: lifecycle.plan.runID, invocationID: lifecycle.plan.invocationID,
                                     fields: lifecycle.fields, user: run.account?.uid) {
            case .failure(let error):
                return [.cgroupFailed(error.description)]
            case .success(let placed):
                run.cgroup = placed.cgroup
                run.configuration?.cgroup = placed.cgroup
                if let limit = placed.tasksRlimit { run.configuration?.attributes.limits[.nproc] = limit }
                let fence = run.fence
                run.configuration?.fence = fence.map { ($0, definition.stopTimeout) }
                return [.cgroupMade(path: placed.cgroup?.path)]
            }
        case .makePrivateTmp:
            switch driver.makePrivateTmp(job: definition.name) {
            case .success(let made): run.privateTmp = made; run.configuration?.privateTmp = made; return [.privateTmpMade]
            case .failure(let error): return [.privateTmpFailed(error.description)]
            }
        default:
            return []
        }
    }

    /// The steps of an adopted run that differ from a started one's: what the earlier jobd prepared
    /// (its assertions held, its environment read) is taken as done, and its process is followed,
    /// not spawned; `nil` for the steps that are the same. Its cgroup is made as any run's: it is
    /// there already, under its `JOBD_RUN_ID`, and gets its limits again (jobd-keeper disabled the
    /// controllers when the earlier jobd exited).
    private func adopt(
        _ action: RunLifecycle.Action, _ adopted: AdoptedProcess, of run: inout RunInProgress, lifecycle: RunLifecycle,
        group: inout TaskGroup<Void>
    ) -> [RunLifecycle.Event]? {
        switch action {
        case .checkAssertions:
            return [.assertionsHeld]
        case .readEnvironment:
            return [.environmentRead]
        case .makePrivateTmp:
            // Its directories stay the earlier jobd's: this one does not know them to remove them.
            return [.privateTmpMade]
        case .logStart(let pid, let fields):
            logger.event(.runAdopt, "run \(lifecycle.plan.invocationID) of \(run.definition.name) (pid \(pid)) adopted from the jobd before", fields)
            return []
        case .spawn:
            let (definition, runID, fields, driver) = (run.definition, lifecycle.plan.runID, lifecycle.fields, driver)
            var adopted = adopted
            adopted.cgroup = run.cgroup ?? adopted.cgroup
            startProcess(run, group: &group) { [adopted] mailed, started in
                await driver.adopt(adopted, definition: definition, runID: runID, fields: fields, mailed: mailed, started: started)
            }
            return []
        default:
            return nil
        }
    }

    /// Starts the process in a task of its own, which reports its pid (and waits until `run.start`
    /// is logged, so that no line of its output comes before it) and its end.
    private func spawn(_ run: inout RunInProgress, lifecycle: RunLifecycle, group: inout TaskGroup<Void>) {
        guard let configuration = run.configuration else { return }
        let (definition, runID, fields, driver) = (run.definition, lifecycle.plan.runID, lifecycle.fields, driver)
        startProcess(run, group: &group) { mailed, started in
            await driver.spawn(configuration, definition: definition, runID: runID, fields: fields, mailed: mailed, started: started)
        }
    }

    /// Runs `start` (a spawn, or the following of an adopted process) in a task of its own, with
    /// what the run's mail keeps of its output; its pid is reported and acknowledged before any of
    /// its output is logged, then its end.
    private func startProcess(
        _ run: RunInProgress, group: inout TaskGroup<Void>,
        _ start: @escaping @Sendable (
            _ mailed: (@Sendable (String) -> Void)?, _ started: @escaping @Sendable (Int32) async -> Void
        ) async -> Result<RunTermination, RunPreparationError>
    ) {
        guard let inbox = run.inbox else { return }
        let mailed = run.mailed.map { output in { @Sendable (line: String) in output.append(line) } }
        group.addTask {
            let result = await start(mailed) { pid in
                await withCheckedContinuation { done in
                    inbox.yield(RunInProgress.Posted(event: .spawned(pid: pid), acknowledge: { done.resume() }))
                }
            }
            switch result {
            case .success(let termination): inbox.yield(RunInProgress.Posted(event: .exited(termination)))
            case .failure(let error): inbox.yield(RunInProgress.Posted(event: .spawnFailed(error.description)))
            }
        }
    }
}

import Glibc
import JobdConfig
import JobdLogging
import JobdTimers
import Logging

extension JobRunner {
    /// Performs one of the lifecycle's actions; returns the events that came of it at once (the
    /// others are posted to the run's inbox: by the driver, the run's watch, its stop timeout).
    ///
    /// Most actions do not suspend, and are performed in a synchronous function: its locals (log
    /// messages, cgroup settings) then live on the thread's stack, not in the run's async frames,
    /// whose task keeps their largest extent for as long as the run is in flight (issue 39).
    func perform(_ action: RunLifecycle.Action, of run: RunInProgress, lifecycle: RunLifecycle) async -> [RunLifecycle.Event] {
        if let events = performAtOnce(action, of: run, lifecycle: lifecycle) { return events }
        return await performSuspending(action, of: run, lifecycle: lifecycle)
    }

    /// The actions that wait: for NSS, `EnvironmentFile=`s, leftovers to go, directories to be removed.
    private func performSuspending(_ action: RunLifecycle.Action, of run: RunInProgress, lifecycle: RunLifecycle) async -> [RunLifecycle.Event] {
        let definition = run.definition
        switch action {
        case .resolveAccount:
            switch await driver.resolveAccount(definition) {
            case .success(let account): run.account = account; return [.accountResolved]
            case .failure(let error): return [.accountFailed(error.description)]
            }
        case .readEnvironment:
            // In a task of its own, whose frames' room goes when it ends, not kept while the process runs (issue 39).
            let (driver, account, plan, context) = (driver, run.account, lifecycle.plan, run.context)
            let prepared = await withTaskGroup(of: Result<SpawnConfiguration, RunPreparationError>.self) { group in
                group.addTask { await driver.prepare(definition, account: account, runID: plan.runID, invocationID: plan.invocationID, context: context) }
                return await group.next() ?? .failure(RunPreparationError(description: "the environment was not read"))
            }
            switch prepared {
            case .success(let configuration): run.configuration = configuration; return [.environmentRead]
            case .failure(let error): return [.environmentFailed(error.description)]
            }
        case .stopLeftovers, .removePrivateTmp:
            return await endSuspending(action, of: run, lifecycle: lifecycle)
        default:
            return []
        }
    }

    /// The actions that answer at once; `nil` for those that wait (``performSuspending(_:of:lifecycle:)``).
    @inline(never)
    private func performAtOnce(_ action: RunLifecycle.Action, of run: RunInProgress, lifecycle: RunLifecycle) -> [RunLifecycle.Event]? {
        if let adopted = run.adopted, let events = adopt(action, adopted, of: run, lifecycle: lifecycle) { return events }
        switch action {
        case .resolveAccount, .readEnvironment, .stopLeftovers, .removePrivateTmp:
            return nil
        case .checkAssertions, .makeCgroup, .makePrivateTmp:
            return prepare(action, of: run, lifecycle: lifecycle)
        case .spawn:
            // Taken, not copied: its environment and exec plan would otherwise stay for as long as the process runs (issue 39).
            guard let configuration = run.configuration.take() else { break }
            driver.spawn(configuration, definition: run.definition, runID: lifecycle.plan.runID, fields: lifecycle.fields,
                         mailed: run.mailedLine, reports: run.reports)
        case .watch:
            beginWatch(of: run)
        case .stopWatching:
            run.watch.end()
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
            let inbox = run.inbox
            run.stopTimeout = driver.schedule(after: run.stopGrace) { inbox.yield(RunInProgress.Posted(event: .stopTimeoutElapsed)) }
        case .kill(let fields):
            logger.event(.runKill, level: .warning,
                         "run \(lifecycle.plan.runID) of \(run.definition.name) still running \(run.stopGrace) after SIGTERM: SIGKILL", fields)
            driver.signal(runID: lifecycle.plan.runID, SIGKILL)
        default:
            return end(action, of: run, lifecycle: lifecycle)
        }
        return []
    }

    /// The steps before the process that answer at once.
    private func prepare(_ action: RunLifecycle.Action, of run: RunInProgress, lifecycle: RunLifecycle) -> [RunLifecycle.Event] {
        let definition = run.definition
        switch action {
        case .checkAssertions:
            // An Assert…= that does not hold fails the run before anything of it starts (result `assert`).
            return [driver.host.failing(definition, assertions: true).map { .assertionFailed(String(describing: $0)) } ?? .assertionsHeld]
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
        _ action: RunLifecycle.Action, _ adopted: AdoptedProcess, of run: RunInProgress, lifecycle: RunLifecycle
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
            var adopted = adopted
            adopted.cgroup = run.cgroup ?? adopted.cgroup
            driver.adopt(adopted, definition: run.definition, runID: lifecycle.plan.runID, fields: lifecycle.fields,
                         mailed: run.mailedLine, reports: run.reports)
            return []
        default:
            return nil
        }
    }
}

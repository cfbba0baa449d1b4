import Glibc
import JobdConfig
import JobdLogging
import JobdTimers
import Logging

extension JobRunner {
    /// What the run's task does next: perform an action that waits, wait for an event, or end.
    enum RunStep {
        /// The run's ``RunInProgress/suspending`` action.
        case perform
        case wait
        case done
    }

    /// The run's lifecycle, its inbox, and its place in the registry; the lifecycle's first actions are due.
    @inline(never)
    func begin(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, context: [String: String], fields: [String: String],
        fence: RunFence?, adopted: AdoptedProcess?
    ) -> (RunInProgress, AsyncStream<RunInProgress.Posted>) {
        let lifecycle = RunLifecycle(.init(definition, runID: runID, invocationID: invocationID, hasFence: fence != nil), fields: fields)
        let (events, inbox) = AsyncStream.makeStream(of: RunInProgress.Posted.self)
        let run = RunInProgress(definition: definition, lifecycle: lifecycle, context: context, fence: fence, started: driver.now(), inbox: inbox)
        run.adopted = adopted
        run.actions = lifecycle.start()
        registry.add(runID: runID, job: definition.name) { [watch = run.watch] reason in watch.stop(reason) }
        return (run, events)
    }

    /// Performs the run's due actions that answer at once, and hands the lifecycle the events that
    /// came of them, one at a time, each event's actions before the next event; stops at an action
    /// that waits. Once nothing is due, the posted event is acknowledged.
    ///
    /// Synchronous: its locals (log messages, cgroup settings) live on the thread's stack, not in
    /// the run's async frames, whose task keeps their largest extent while the run is in flight (issue 39).
    @inline(never)
    func advance(_ run: RunInProgress) -> RunStep {
        while true {
            if !run.actions.isEmpty {
                let action = run.actions.removeFirst()
                guard let events = performAtOnce(action, of: run, lifecycle: run.lifecycle) else {
                    run.suspending = action
                    return .perform
                }
                run.next += events
            } else if !run.next.isEmpty {
                let event = run.next.removeFirst()
                run.actions = run.lifecycle.handle(event)
            } else {
                run.acknowledge?()
                run.acknowledge = nil
                return run.lifecycle.phase == .done ? .done : .wait
            }
        }
    }

    /// The run is over: how it ended (`abandoned` if its lifecycle never said), and its mail.
    @inline(never)
    func finish(_ run: RunInProgress) -> (outcome: RunOutcome, mail: RunMail?) {
        run.close()
        let plan = run.lifecycle.plan
        let outcome = run.outcome ?? RunOutcome(runID: plan.runID, invocationID: plan.invocationID, job: run.definition.name,
                                                termination: .unknown, result: .abandoned, duration: TimeSpan(microseconds: 0))
        return (outcome, run.mail)
    }

    /// The actions that wait: for NSS, `EnvironmentFile=`s, leftovers to go, directories to be
    /// removed. Each in a function of its own, so that the task's frames hold one of them at a time.
    @inline(never)
    func performSuspending(of run: RunInProgress) async -> [RunLifecycle.Event] {
        guard let action = run.suspending.take() else { return [] }
        switch action {
        case .resolveAccount:
            return await resolveAccount(of: run)
        case .readEnvironment:
            return await readEnvironment(of: run)
        case .stopLeftovers(let count, let fields):
            return await stopLeftovers(count: count, fields: fields, of: run)
        case .removePrivateTmp:
            return await removePrivateTmp(of: run)
        default:
            return []
        }
    }

    @inline(never)
    private func resolveAccount(of run: RunInProgress) async -> [RunLifecycle.Event] {
        switch await driver.resolveAccount(run.definition) {
        case .success(let account): run.account = account; return [.accountResolved]
        case .failure(let error): return [.accountFailed(error.description)]
        }
    }

    @inline(never)
    private func readEnvironment(of run: RunInProgress) async -> [RunLifecycle.Event] {
        // In a task of its own, whose frames' room goes when it ends, not kept while the process runs (issue 39).
        // The configuration comes back in an array, out of line: this frame's room for a result is kept too.
        let (driver, definition, account, plan, context) = (driver, run.definition, run.account, run.lifecycle.plan, run.context)
        let prepared = await withTaskGroup(of: Result<[SpawnConfiguration], RunPreparationError>.self) { group in
            group.addTask {
                await driver.prepare(definition, account: account, runID: plan.runID, invocationID: plan.invocationID, context: context).map { [$0] }
            }
            return await group.next() ?? .failure(RunPreparationError(description: "the environment was not read"))
        }
        return Self.environmentRead(prepared, of: run)
    }

    @inline(never)
    private static func environmentRead(_ prepared: Result<[SpawnConfiguration], RunPreparationError>, of run: RunInProgress) -> [RunLifecycle.Event] {
        switch prepared {
        case .success(let configuration): run.configuration = configuration.first; return [.environmentRead]
        case .failure(let error): return [.environmentFailed(error.description)]
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
            spawned?(SpawnedRun(job: run.definition.name, invocationID: lifecycle.plan.invocationID, pid: pid,
                                cgroup: registry.cgroup(of: lifecycle.plan.runID)))
        case .logStartFailure(let message, let fields):
            logger.event(.runStart, level: .error, message, fields)
        case .terminate(let reason, let fields):
            // An adopted process is the keeper's child, not jobd's: only its end, followed, says it ended.
            if run.adopted == nil, let pid = lifecycle.pid, driver.hasEnded(pid: pid) { return [.endedBeforeStop] }
            run.stopGrace = registry.bounded(run.definition.stopTimeout)
            logStop(reason, of: run.definition, runID: lifecycle.plan.runID, grace: run.stopGrace, fields: fields)
            driver.signal(runID: lifecycle.plan.runID, SIGTERM)
            return [.stopSent]
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

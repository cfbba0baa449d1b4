import Glibc
import JobdCalendar
import JobdConfig
import JobdPolicy
import JobdControl
import JobdFleet
import JobdLocks
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdState
import JobdSystem
import JobdTimers
package import Logging
import SystemdKit
import UnixSignals
import JobdHost

extension Daemon {
    /// `$STATE_DIRECTORY` (the first, if systemd set several) or `/var/lib/jobd`.
    package static func defaultStateDirectory(environment: [String: String]) -> String {
        StateDirectory.defaultPath(environment: environment)
    }

    /// `$JOBD_SPOOL_DIRECTORY` or `/var/spool/jobd`: where users' own jobs are kept.
    package static func defaultSpoolDirectory(environment: [String: String]) -> String {
        environment["JOBD_SPOOL_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 } ?? "/var/spool/jobd"
    }
}

/// The daemon: loads the configuration, arms one owner per job, tells systemd it is ready, and runs
/// the main loop until SIGTERM or SIGINT.
package struct Daemon {
    let options: DaemonOptions
    let logger: Logger

    package init(options: DaemonOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// The configuration jobd starts with, or `nil` (said in the journal and `STATUS=`) when it
    /// cannot be read at all. Each job file counts on its own: a broken file disables its job only,
    /// and a broken jobd.conf means the default settings.
    private func firstConfiguration(
        _ directory: JobDirectory, users: UserJobStore, jobFiles: inout JobFileCache, notifier: ServiceNotifier
    ) -> JobdConfiguration? {
        UserJobStore.move(from: options.stateDirectory + "/users", to: options.spoolDirectory, logger: logger)
        var configuration = directory.read(using: &jobFiles)
        configuration.addUserJobs(from: users, configDirectory: options.configDirectory)
        for warning in configuration.addCronJobs(from: CronSources(options: options)) { logger.warning("\(warning.warningLine)") }
        guard let fatal = configuration.fatal else { return configuration }
        logger.log(configErrors: [fatal])
        let reason = "jobd cannot start: \(fatal)"
        notifier.send(.status(reason))
        logger.event(.daemonExit, level: .error, reason, [:])
        return nil
    }

    /// What the scheduler needs before the first load: the machine's seed, the wall clock's
    /// watch, the leak detector, and what an earlier jobd knew of the jobs' last runs (a restart
    /// forgets no failure).
    private func prepare(
        _ scheduler: Scheduler, queue: TimerQueue, settings: DaemonSettings, configuration: JobdConfiguration, state: StateDirectory,
        bootID: String, post: @escaping @Sendable (DaemonEvent) -> Void
    ) {
        // FixedRandomDelay= and RandomizedOffsetSec= differ by machine, as systemd's do.
        scheduler.hostSeed = (try? ID128.machineID()) ?? ""
        queue.onWallClockSet { post(.wallClockSet) }
        scheduler.leakDetector = LeakDetector(grace: settings.leakGrace.duration, queue: queue, logger: logger) { post(.leakCheck) }
        // A handover's pace (this boot's) is taken once: written again without it, a later stop and
        // start counts from its own start, as before.
        let saved = state.savedHistories(of: Set(configuration.jobs.map(\.name) + configuration.broken.map(\.name)))
        var restored: [String: JobHistory] = [:]
        for (job, history) in saved {
            restored[job] = history.restoringPace(inBoot: bootID)
            if history.pace != nil { state.saveHistory(of: job, restored[job]) }
        }
        scheduler.restore(restored)
    }

    /// The control socket, opened before READY=1 (its requests wait for the loop): once systemd
    /// says jobd started, jobctl must work. Users' own requests are answered on its threads.
    private func openControl(
        lock: PidFileLock?, users: UserJobStore, directory: JobDirectory, generation: LockedBox<Generation>,
        post: @escaping @Sendable (DaemonEvent) -> Void
    ) -> RuntimeFiles {
        let userRequests = UserRequests(store: users, directory: directory, post: post, generation: generation)
        let crontabRequests = CrontabRequests(spool: CrontabSpool(path: options.crontabSpool), accessDirectory: options.cronAccessDirectory, logger: logger,
                                              generation: generation)
        return RuntimeFiles(lock: lock, directory: options.runtimeDirectory, logger: logger) { request, reply in
            // The authorizer first (in userRequests), then whose crontab (crontabRequests).
            if userRequests.handle(request, reply: reply) || crontabRequests.handle(request, reply: reply) { return }
            post(.control(request, reply))
        }
    }

    /// systemd's `WATCHDOG_USEC=` for jobd, or `nil` (a setting that is wrong is said and ignored).
    private func watchdogInterval() -> Duration? {
        do {
            return try Watchdog.interval()
        } catch {
            logger.warning("ignoring the watchdog setting: \(error)")
            return nil
        }
    }

    /// Runs until asked to stop; returns the process's exit status.
    package func run() async -> Int32 {
        // One jobd per runtime directory: the lock before anything is logged, read or bound.
        guard case .proceed(let runtimeLock) = RuntimeFiles.lock(directory: options.runtimeDirectory, logger: logger) else { return 1 }
        logger.event(.daemonStart, "jobd \(BuildInfo.version) starting with configuration \(options.configDirectory)")
        // Signal handlers first: READY=1 promises that a SIGHUP from now on is a reload.
        let signals = await Self.trapSignals(stall: options.faults.stall)
        let notifier = ServiceNotifier(logger: logger)

        var jobFiles = JobFileCache()
        let directory = JobDirectory(path: options.configDirectory, databaseCheck: FleetConnectionString.check)
        let userJobs = UserJobStore(directory: options.spoolDirectory)
        let cronSources = CronSources(options: options)
        // Cron's files as they are before the first read: the watch hears what changes after it.
        let cronFiles = CronWatch.fingerprint(of: cronSources)
        guard let configuration = firstConfiguration(directory, users: userJobs, jobFiles: &jobFiles, notifier: notifier) else { return 1 }
        let settings = configuration.settings ?? DaemonSettings()
        let watchdogInterval = watchdogInterval()

        // Owners and their timers log their bookkeeping through one batch: compact when many come or go at once.
        let ownerEvents = OwnerEventBatch(logger: logger)
        guard let queue = Self.makeTimerQueue(events: ownerEvents, logger: logger) else { return 1 }
        let events = EventInbox<DaemonEvent>()
        let state = StateDirectory(path: options.stateDirectory, runtimeDirectory: options.runtimeDirectory, logger: logger)
        let bootID = (try? ID128.bootID()) ?? "unknown"
        let zone = TimeZoneRules.current(environment: options.environment)
        let clocks = Self.clocks(skew: options.faults.clockSkew)
        let fences = FenceFiles(runtimeDirectory: options.runtimeDirectory)
        let fleet = Self.makeFleet(settings: settings, options: options, fences: fences, logger: logger, clocks: clocks)
        let joined = await Self.joinFleet(fleet, jobs: configuration.jobs, local: state)
        let scheduler = Scheduler(
            queue: queue, daemonStart: .now(), logger: logger, clocks: clocks, zone: zone, store: joined.store,
            firstStartThisBoot: state.isFirstStart(inBoot: bootID), events: ownerEvents
        ) { due in
            events.yield(.due(due))
        }
        prepare(scheduler, queue: queue, settings: settings, configuration: configuration, state: state, bootID: bootID) {
            events.yield($0)
        }
        // TZ in the environment wins over /etc/localtime; only without it is the file watched.
        let zoneWatch = options.environment["TZ"] == nil ? TimeZoneWatch { events.yield(.timeZoneChanged) } : nil
        let tasks = BackgroundTasks()
        let environment = options.environment
        // Cron mode hears cron's files change as cron does, without a reload command. Watched even
        // while it is off, so that Enable=yes and a reload are enough; the loop ignores it then.
        let cronWatch = CronWatch(sources: cronSources, since: cronFiles) { events.yield(.cronChanged($0)) }
        let source = DirectorySource(
            directory: directory, users: userJobs, cron: cronSources,
            beforeRead: DaemonFaults.blocking(options.faults.slowLoad), logger: logger)
        let (runner, ceiling) = makeRunner(environment: environment) { state.runSpawned($0) }
        let claims: (any FleetClaims)? = fleet.map { DatabaseClaims(database: $0, tasks: tasks, fences: fences) }
        var context = DaemonContext(
            clocks: clocks, configuration: source, store: state, launcher: TaskLauncher(runner: runner, tasks: tasks), fleet: claims,
            post: { events.yield($0) }, zone: { TimeZoneRules.current(environment: environment) })
        context.runsInFlightCeiling = ceiling
        context.trimMemory = { [settledTrim = SettledTrim(queue: queue)] in settledTrim.trimNow() }
        context.stall = DaemonFaults.blocking(options.faults.stall)
        // What the connections' threads decide requests against (ControlAuthorizer), as the loop applies it.
        let published = LockedBox(Generation(jobs: []))
        let control = openControl(lock: runtimeLock, users: userJobs, directory: directory, generation: published) { events.yield($0) }
        context.limitUserConnections = control.limitUserConnections
        wireHandover(&context, state: state)
        context.publishGeneration = { generation in published.withLock { $0 = generation } }
        let loop = MainLoop(options: options, settings: settings, logger: logger, scheduler: scheduler, notifier: notifier, context: context)
        for notice in joined.notices { events.yield(.fleet(notice)) }
        let watchdog = watchdogInterval.map { interval in
            WatchdogPinger(queue: queue, interval: interval) { events.yieldAhead(.watchdogTick) }
        }
        notifier.attachRetry(queue: queue) { events.yield(.notifyRetry) }

        // jobd's own timers (retries, the reload watch, metrics, the leak check's, the watchdog's,
        // the notify retry), all made by now, before any job's: counted so that the exit line
        // counts only jobs'.
        let ownTimers = queue.statistics.liveTimers
        await withDiscardingTaskGroup { group in
            loop.start(configuration, jobFiles: jobFiles)
            group.addTask { await tasks.run() }
            group.addTask {
                for await signal in signals { events.yield(.signal(signal)) }
            }
            if let fleet {
                let link = FleetLink(database: fleet, connected: !joined.notices.isEmpty)
                group.addTask { await link.run { events.yield(.fleet($0)) } }
            }
            for await event in events {
                if !loop.handle(event) { break }
            }
            group.cancelAll()
        }
        await fleet?.shutdown()
        state.flushHistories()
        // Every thread jobd started ends here: the zone watch's (the timing thread's with its queue,
        // the control socket's with `control.remove()` below).
        zoneWatch?.stop()
        cronWatch?.stop()
        withExtendedLifetime((watchdog, zoneWatch, cronWatch, loop)) {}
        control.remove()
        logger.event(.daemonExit, "jobd stopped: \(queue.statistics.liveTimers - ownTimers) job timer(s) live, "
                     + "\(scheduler.liveOwners) owner(s) in the generation", [:])
        return 0
    }
}

import CMalloc
import Glibc
import JobdCalendar
import JobdConfig
import JobdControl
import JobdFleet
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
package import Logging
import SystemdKit
import UnixSignals

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
    private let options: DaemonOptions
    private let logger: Logger

    package init(options: DaemonOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs until asked to stop; returns the process's exit status.
    package func run() async -> Int32 {
        // One jobd per runtime directory: the lock before anything is logged, read or bound.
        guard case .proceed(let runtimeLock) = RuntimeFiles.lock(directory: options.runtimeDirectory, logger: logger) else { return 1 }
        logger.event(.daemonStart, "jobd \(BuildInfo.version) starting with configuration \(options.configDirectory)")
        // Signal handlers first: READY=1 promises that a SIGHUP from now on is a reload.
        var trapped: [UnixSignal] = [.sigterm, .sigint, .sighup]
        let stall = options.environment[Self.stallVariable].flatMap(Double.init)
        if stall != nil { trapped.append(.sigusr2) }
        let signals = await UnixSignalsSequence(trapping: trapped)
        let notifier = ServiceNotifier(logger: logger)

        // Each job file on its own: a broken file disables its job only, and a broken jobd.conf
        // means the default settings. Only a configuration that cannot be read at all stops jobd.
        var jobFiles = JobFileCache()
        let directory = JobDirectory(path: options.configDirectory, databaseCheck: FleetConnectionString.check)
        UserJobStore.move(from: options.stateDirectory + "/users", to: options.spoolDirectory, logger: logger)
        let userJobs = UserJobStore(directory: options.spoolDirectory)
        var configuration = directory.read(using: &jobFiles)
        configuration.addUserJobs(from: userJobs, configDirectory: options.configDirectory)
        if let fatal = configuration.fatal {
            logger.log(configErrors: [fatal])
            let reason = "jobd cannot start: \(fatal)"
            notifier.send(.status(reason))
            logger.event(.daemonExit, level: .error, reason, [:])
            return 1
        }
        let settings = configuration.settings ?? DaemonSettings()
        let watchdogInterval: Duration?
        do {
            watchdogInterval = try Watchdog.interval()
        } catch {
            logger.warning("ignoring the watchdog setting: \(error)")
            watchdogInterval = nil
        }

        // Owners and their timers log their bookkeeping through one batch: compact when many come or go at once.
        let ownerEvents = OwnerEventBatch(logger: logger)
        let queue: TimerQueue
        do {
            queue = try TimerQueue(observer: TimerEventLog(logger: logger, events: ownerEvents))
        } catch {
            logger.event(.daemonExit, level: .critical, "jobd cannot start its timing thread: \(error)", [:])
            return 1
        }
        let (events, continuation) = AsyncStream.makeStream(of: DaemonEvent.self)
        let state = StateDirectory(path: options.stateDirectory, logger: logger)
        let bootID = (try? ID128.bootID()) ?? "unknown"
        let zone = TimeZoneRules.current(environment: options.environment)
        let clocks = Self.clocks(environment: options.environment)
        let fences = FenceFiles(runtimeDirectory: options.runtimeDirectory)
        let fleet = Self.makeFleet(settings: settings, options: options, fences: fences, logger: logger, clocks: clocks)
        let joined = await Self.joinFleet(fleet, jobs: configuration.jobs, local: state)
        let scheduler = Scheduler(
            queue: queue, daemonStart: .now(), logger: logger, clocks: clocks, zone: zone, store: joined.store,
            firstStartThisBoot: state.isFirstStart(inBoot: bootID), events: ownerEvents
        ) { due in
            continuation.yield(.due(due))
        }
        // FixedRandomDelay= and RandomizedOffsetSec= differ by machine, as systemd's do.
        scheduler.hostSeed = (try? ID128.machineID()) ?? ""
        queue.onWallClockSet { continuation.yield(.wallClockSet) }
        let leakDetector = LeakDetector(grace: settings.leakGrace.duration, queue: queue, logger: logger) {
            continuation.yield(.leakCheck)
        }
        scheduler.leakDetector = leakDetector
        // What an earlier jobd knew of the jobs' last runs: a restart forgets no failure.
        scheduler.restore(state.savedHistories(of: Set(configuration.jobs.map(\.name) + configuration.broken.map(\.name))))
        // TZ in the environment wins over /etc/localtime; only without it is the file watched.
        let zoneWatch = options.environment["TZ"] == nil ? TimeZoneWatch { continuation.yield(.timeZoneChanged) } : nil
        let tasks = BackgroundTasks()
        let environment = options.environment
        let source = DirectorySource(
            directory: directory, users: userJobs,
            slowSeconds: environment[Self.slowLoadVariable].flatMap(Double.init), logger: logger)
        let launcher = TaskLauncher(runner: JobRunner(logger: logger, environment: environment), tasks: tasks)
        let claims: (any FleetClaims)? = fleet.map { DatabaseClaims(database: $0, tasks: tasks, fences: fences) }
        var context = DaemonContext(
            clocks: clocks, configuration: source, store: state, launcher: launcher, fleet: claims,
            post: { continuation.yield($0) }, zone: { TimeZoneRules.current(environment: environment) })
        context.trimMemory = { malloc_trim(0) }
        if let stall { context.stall = { usleep(UInt32(stall * 1_000_000)) } }
        // The control socket before READY=1 (its requests wait for the loop): once systemd says jobd started, jobctl must work.
        let userRequests = UserRequests(store: userJobs, directory: directory, post: { continuation.yield($0) })
        let control = RuntimeFiles(lock: runtimeLock, directory: options.runtimeDirectory, logger: logger) { request, reply in
            if !userRequests.handle(request, reply: reply) { continuation.yield(.control(request, reply)) }
        }
        context.limitUserConnections = control.limitUserConnections
        let loop = MainLoop(options: options, settings: settings, logger: logger, scheduler: scheduler, notifier: notifier, context: context)
        for notice in joined.notices { continuation.yield(.fleet(notice)) }
        let watchdog = watchdogInterval.map { interval in
            WatchdogPinger(queue: queue, interval: interval) { continuation.yield(.watchdogTick) }
        }
        notifier.attachRetry(queue: queue) { continuation.yield(.notifyRetry) }

        // jobd's own timers (retries, the reload watch, metrics, the leak check's, the watchdog's,
        // the notify retry), all made by now, before any job's: counted so that the exit line
        // counts only jobs'.
        let ownTimers = queue.statistics.liveTimers
        await withDiscardingTaskGroup { group in
            loop.start(configuration, jobFiles: jobFiles)
            group.addTask { await tasks.run() }
            group.addTask {
                for await signal in signals { continuation.yield(.signal(signal)) }
            }
            if let fleet {
                let link = FleetLink(database: fleet, connected: !joined.notices.isEmpty)
                group.addTask { await link.run { continuation.yield(.fleet($0)) } }
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
        withExtendedLifetime((watchdog, zoneWatch, loop)) {}
        control.remove()
        logger.event(.daemonExit, "jobd stopped: \(queue.statistics.liveTimers - ownTimers) job timer(s) live, "
                     + "\(scheduler.liveOwners) owner(s) in the generation", [:])
        return 0
    }
}

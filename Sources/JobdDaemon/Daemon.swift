import JobdConfig
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
import UnixSignals

/// How jobd was started.
public struct DaemonOptions: Sendable {
    /// The configuration directory, holding `jobs.d/`.
    public var configDirectory: String
    /// jobd's own environment; jobs do not inherit it.
    public var environment: [String: String]

    public init(configDirectory: String, environment: [String: String]) {
        self.configDirectory = configDirectory
        self.environment = environment
    }
}

/// The daemon: loads the configuration, arms one owner per job, and runs the main loop until
/// SIGTERM or SIGINT.
///
/// One task owns all scheduling state. The timing thread, finished runs and signals all reach it
/// as events on one stream, so nothing is shared but the stream; runs are child tasks of the loop,
/// so none outlives it.
public struct Daemon {
    private let options: DaemonOptions
    private let logger: Logger

    public init(options: DaemonOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs until asked to stop; returns the process's exit status.
    public func run() async -> Int32 {
        logger.event(.daemonStart, "jobd starting with configuration \(options.configDirectory)")
        // Handlers first, so that a signal sent as soon as jobd is up is never lost.
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup)

        let definitions: [JobDefinition]
        switch JobDirectory(path: options.configDirectory).load() {
        case .success(let loaded):
            definitions = loaded
        case .failure(let errors):
            logConfigErrors(errors)
            logger.event(.daemonStop, level: .error,
                         "jobd cannot start: \(errors.errors.count) configuration error(s)", [:])
            return 1
        }

        let queue: TimerQueue
        do {
            queue = try TimerQueue(observer: TimerEventLog(logger: logger))
        } catch {
            logger.event(.daemonStop, level: .critical, "jobd cannot start its timing thread: \(error)", [:])
            return 1
        }
        let (events, continuation) = AsyncStream.makeStream(of: DaemonEvent.self)
        let scheduler = Scheduler(queue: queue, daemonStart: .now(), logger: logger) { due in
            continuation.yield(.due(due))
        }
        let summary = scheduler.load(definitions)
        let runner = JobRunner(logger: logger, environment: options.environment)
        logger.event(.daemonReady, "jobd ready: \(definitions.count) job(s), generation \(summary.generation)", [
            JobdField.generation: String(summary.generation),
        ])

        await withDiscardingTaskGroup { group in
            group.addTask {
                for await signal in signals { continuation.yield(.signal(signal)) }
            }
            loop: for await event in events {
                switch event {
                case .due(let due):
                    handleDue(due, scheduler: scheduler, runner: runner, group: &group, continuation: continuation)
                case .runFinished(let outcome):
                    scheduler.runFinished(job: outcome.job, outcome: outcome.termination.description, now: outcome.finished)
                case .signal(let signal) where signal == .sighup:
                    reload(scheduler)
                case .signal(let signal):
                    logger.event(.daemonStop, "jobd stopping on \(signal)", [:])
                    break loop
                }
            }
            scheduler.shutdown()
            group.cancelAll()
        }
        logger.event(.daemonExit, "jobd stopped: \(queue.statistics.liveTimers) timer(s) live, "
                     + "\(queue.armedCount) armed", [:])
        return 0
    }

    private func handleDue(
        _ due: DueJob, scheduler: Scheduler, runner: JobRunner,
        group: inout DiscardingTaskGroup, continuation: AsyncStream<DaemonEvent>.Continuation
    ) {
        let fields = [
            JobdField.job: due.job, JobdField.owner: String(due.ownerID),
            JobdField.generation: String(due.generation), JobdField.timer: String(due.timerID),
        ]
        logger.event(.timerFire, "timer \(due.timerID) of \(due.job) fired", fields)
        switch scheduler.jobDue(due) {
        case .run(let definition):
            let runID = JobRunner.makeRunID()
            group.addTask {
                let outcome = await runner.run(definition, runID: runID)
                continuation.yield(.runFinished(outcome))
            }
        case .skip(let reason):
            logger.event(.runSkip, level: .notice, "\(due.job) fell due but was not run: \(reason)",
                         fields.merging([JobdField.reason: reason]) { $1 })
        }
    }

    /// Reads the configuration again; all or nothing. A configuration with any error leaves the
    /// running generation untouched.
    private func reload(_ scheduler: Scheduler) {
        logger.event(.reloadStart, "reloading \(options.configDirectory)", [:])
        switch JobDirectory(path: options.configDirectory).load() {
        case .success(let definitions):
            let summary = scheduler.load(definitions)
            logger.event(.reloadDone, "reload done: \(summary)", [JobdField.generation: String(summary.generation)])
        case .failure(let errors):
            logConfigErrors(errors)
            logger.event(.reloadFailed, level: .error,
                         "reload rejected, generation \(scheduler.generation.number) keeps running: "
                         + "\(errors.errors.count) configuration error(s)",
                         [JobdField.generation: String(scheduler.generation.number)])
        }
    }

    private func logConfigErrors(_ errors: ConfigErrors) {
        for error in errors.errors {
            var fields = [JobdField.file: error.file]
            if let line = error.line { fields[JobdField.line] = String(line) }
            logger.event(.configError, level: .error, error.description, fields)
        }
    }
}

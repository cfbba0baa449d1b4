import JobdCalendar
import JobdConfig
import JobdFleet
import JobdRunner
import JobdScheduler
import JobdLogging
import JobdTimers
import Logging
import UnixSignals

/// What jobd sets up before its main loop runs: its signals, its timing thread, the clocks it
/// schedules by and the fleet it joins.
extension Daemon {
    /// SIGTERM, SIGINT and SIGHUP, and SIGUSR2 in the tests' own build when it may stall the loop
    /// (``DaemonFaults/stall``).
    static func trapSignals(stall: Duration?) async -> UnixSignalsSequence {
        var trapped: [UnixSignal] = [.sigterm, .sigint, .sighup]
        if stall != nil { trapped.append(.sigusr2) }
        return await UnixSignalsSequence(trapping: trapped)
    }

    /// The timing thread's queue, or `nil` (said as jobd's exit) when the thread cannot start.
    static func makeTimerQueue(events: OwnerEventBatch, logger: Logger) -> TimerQueue? {
        do {
            return try TimerQueue(observer: TimerEventLog(logger: logger, events: events))
        } catch {
            logger.event(.daemonExit, level: .critical, "jobd cannot start its timing thread: \(error)", [:])
            return nil
        }
    }

    /// The wall clock jobd schedules by: the system's, shifted by `skew` in the tests' own build
    /// (``DaemonFaults/clockSkew``).
    static func clocks(skew: Duration) -> Scheduler.Clocks {
        let microseconds = skew.components.seconds * 1_000_000 + skew.components.attoseconds / 1_000_000_000_000
        guard microseconds != 0 else { return .system }
        let system = Scheduler.Clocks.system
        return Scheduler.Clocks(monotonic: system.monotonic, realtime: {
            RealtimeInstant(microseconds: system.realtime().microseconds + microseconds)
        })
    }

    /// The fleet's database of `[Fleet]`, or `nil` (with the reason logged) when jobd.conf has none
    /// or its thread cannot start; fleet jobs are then skipped.
    static func makeFleet(
        settings: DaemonSettings, options: DaemonOptions, fences: FenceFiles, logger: Logger, clocks: Scheduler.Clocks
    ) -> FleetDatabase? {
        guard let fleet = settings.fleet else { return nil }
        fences.prepare(logger: logger)
        do {
            return try FleetDatabase(settings: fleet, instance: options.instance, logger: logger, realtime: clocks.realtime,
                                     fences: fences.leaseFences(logger: logger))
        } catch {
            logger.error("fleet: \(error); RunOn=one-node jobs will be skipped")
            return nil
        }
    }

    /// Connects to the fleet before the first generation is loaded, so that runs due at once can be
    /// claimed and `Persistent=` fleet jobs catch up from the fleet's last claimed elapse. Bounded
    /// by the connection timeout; without the database, host jobs start all the same and the link
    /// keeps trying. Returns the trigger store the scheduler is to use and what to tell the loop.
    static func joinFleet(
        _ fleet: FleetDatabase?, jobs: [JobDefinition], local: any TriggerStore
    ) async -> (store: any TriggerStore, notices: [FleetLink.Notice]) {
        guard let fleet else { return (local, []) }
        do {
            let report = try await fleet.connect()
            let persistent = jobs.filter { $0.runOn == .oneNode && $0.persistent }.map(\.name)
            let last = try await fleet.lastElapses(of: persistent)
            let notices: [FleetLink.Notice] = [.connected(clockOffset: report.clockOffset)] + (report.lost.isEmpty ? [] : [.lost(report.lost)])
            return (FleetTriggerStore(local: local, fleet: last), notices)
        } catch {
            return (local, [])
        }
    }

    /// The runner of every run: jobd's own soft RLIMIT_NOFILE raised first (three descriptors a run
    /// in flight), its runs' kept as it was (issue 39).
    /// `spawned` hears of each run's process (``JobRunner/spawned``). With it, how many runs jobd's
    /// descriptors allow in flight at once (``RunAdmission/runsInFlightCeiling(descriptorLimit:)``).
    func makeRunner(environment: [String: String], spawned: @escaping @Sendable (SpawnedRun) -> Void) -> (JobRunner, ceiling: Int?) {
        let (descriptors, soft) = DescriptorLimit.raiseOwn()
        if let raised = descriptors.raisedSoft, let runs = descriptors.runs?.soft {
            logger.debug("raised jobd's soft RLIMIT_NOFILE from \(runs) to \(raised); runs keep \(runs)")
        }
        let ceiling = RunAdmission.runsInFlightCeiling(descriptorLimit: soft)
        if let ceiling, let soft { logger.info("at most \(ceiling) runs in flight at once: jobd's RLIMIT_NOFILE is \(soft), three a run") }
        var runner = JobRunner(logger: logger, environment: environment, host: SystemHostFacts(), descriptorLimit: descriptors.runs,
                               beforeAccountLookUp: DaemonFaults.blocking(options.faults.slowAccountLookUp))
        runner.spawned = spawned
        return (runner, ceiling)
    }
}

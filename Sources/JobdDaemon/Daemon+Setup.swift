import JobdCalendar
import JobdConfig
import JobdFleet
import JobdScheduler
import Logging

/// What jobd sets up before its main loop runs: the clocks it schedules by, the fleet it joins,
/// and the fault injection the tests use.
extension Daemon {
    /// Fault injection for testing the watchdog: with this variable set to a number of seconds,
    /// SIGUSR2 blocks the main loop for that long, as a hung filesystem or a bug would.
    static let stallVariable = "JOBD_FAULT_STALL_SECONDS"
    /// Fault injection for testing slow reloads: with this variable set to a number of seconds,
    /// the loader thread waits that long before it reads the configuration at a reload, as a hung
    /// NFS mount or a slow LDAP server would make it.
    static let slowLoadVariable = "JOBD_FAULT_SLOW_LOAD_SECONDS"

    /// Fault injection for the fleet's clock check: this many milliseconds (±) are added to jobd's
    /// wall clock, for its calendar triggers and its fleet claims alike, as a skewed node's clock would be.
    static let clockSkewVariable = "JOBD_FAULT_CLOCK_SKEW_MSEC"

    /// The wall clock jobd schedules by: the system's, shifted by ``clockSkewVariable`` in tests.
    static func clocks(environment: [String: String]) -> Scheduler.Clocks {
        guard let skew = environment[clockSkewVariable].flatMap(Int64.init), skew != 0 else { return .system }
        let system = Scheduler.Clocks.system
        return Scheduler.Clocks(monotonic: system.monotonic, realtime: {
            RealtimeInstant(microseconds: system.realtime().microseconds + skew * 1_000)
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
}

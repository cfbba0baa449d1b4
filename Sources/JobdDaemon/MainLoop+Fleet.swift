import JobdCalendar
import JobdConfig
import JobdFleet
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
import SystemdKit

/// Fleet jobs (`RunOn=one-node`): a timer run (or its retry) is started only after this node claimed
/// its elapse in the fleet's database. The claim runs off the main loop; its verdict comes back as
/// an event, and either starts the run or ends it as a `run.skip` (`claimed-by NODE`,
/// `fleet-unavailable`, `clock-skew`, `no-fleet`). Host jobs never wait for the database.
extension MainLoop {
    /// The fleet's claims (`[Fleet]` in jobd.conf at start), if jobd has a fleet.
    var fleet: (any FleetClaims)? { context.fleet }

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
        settings: DaemonSettings, options: DaemonOptions, logger: Logger, clocks: Scheduler.Clocks
    ) -> FleetDatabase? {
        guard let fleet = settings.fleet else { return nil }
        do {
            return try FleetDatabase(settings: fleet, instance: options.instance, logger: logger, realtime: clocks.realtime)
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

    /// Whether `request` must claim its elapse before it starts.
    func needsClaim(_ request: RunRequest, _ definition: JobDefinition) -> Bool {
        definition.runOn == .oneNode && request.scheduledElapse != nil
    }

    /// Claims the request's elapse off the main loop; the verdict comes back as `.fleetClaimed`.
    func claim(_ request: RunRequest) {
        let post = context.post
        guard let fleet, let elapse = request.scheduledElapse else {
            post(.fleetClaimed(request, .unavailable(reason: "no-fleet")))
            return
        }
        let key = ClaimKey(job: request.job, elapse: elapse, attempt: request.attempt)
        fleet.claim(key, for: request) { post(.fleetClaimed(request, $0)) }
    }

    /// A claim's verdict: the run starts, or leaves the admission as skipped.
    func claimed(_ request: RunRequest, _ verdict: ClaimVerdict) {
        let inFlight = admission.runsInFlight(of: request.job).contains { $0.request.runID == request.runID }
        switch verdict {
        case .won:
            fleetLastNode[request.job] = fleet?.settings.node
            if inFlight, !stopping {
                start(request, claimed: true)
                return
            }
            // Claimed, but jobd is stopping (or the job went): the claim ends without a run.
            fleet?.finish(runID: request.invocationID, result: RunResult.stopped.rawValue)
        case .taken(let node):
            fleetLastNode[request.job] = node
        case .unavailable:
            break
        }
        perform(admission.startDeclined(job: request.job, runID: request.runID,
                                        reason: verdict.skipReason ?? "stopping", now: now))
    }

    /// The journal fields of a claimed run's start.
    func fleetFields(of request: RunRequest) -> [String: String] {
        guard let node = fleet?.settings.node, let elapse = request.scheduledElapse else { return [:] }
        return [JobdField.node: node, JobdField.elapseUSec: String(elapse.microseconds)]
    }

    /// A run ended: its claim, if this node holds one, records the result (whatever the job's
    /// definition says now: a reload may have removed it meanwhile).
    func fleetRunEnded(_ outcome: RunOutcome) {
        fleet?.finish(runID: outcome.invocationID, result: outcome.result.rawValue)
    }

    /// What the fleet link reports: said in the journal and `STATUS=`; lost runs may be retried here.
    func fleetNotice(_ notice: FleetLink.Notice) {
        let node = fleet?.settings.node ?? "?"
        switch notice {
        case .connected(let offset):
            fleetState = "connected as \(node)"
            logger.notice("fleet: connected to the database as node \(node) (clock offset \(Self.milliseconds(offset)))",
                          metadata: [JobdField.node: .string(node)])
        case .unavailable(let reason, let retryIn, let failures):
            fleetState = "database unavailable, reconnecting"
            logger.log(level: failures == 1 ? .warning : .debug,
                       "fleet: database unavailable (\(reason)); RunOn=one-node jobs are skipped, host jobs run; retry \(failures) in \(retryIn)",
                       metadata: [JobdField.node: .string(node), JobdField.reason: .string(reason)])
        case .clock(let offset, let accepted):
            fleetState = accepted ? "connected as \(node)" : "clock off by \(Self.milliseconds(offset)), not claiming"
            logger.log(level: accepted ? .notice : .error,
                       accepted ? "fleet: the clock is within MaxClockSkewSec= of the database's again (\(Self.milliseconds(offset)))"
                           : "fleet: this node's clock is \(Self.milliseconds(offset)) from the database's, more than MaxClockSkewSec=: it claims no elapse until it is set right",
                       metadata: [JobdField.node: .string(node)])
        case .lost(let claims):
            for claim in claims {
                logger.warning("fleet: run \(claim.runID) of \(claim.key.job) on node \(claim.node) is lost: its lease lapsed",
                               metadata: [JobdField.job: .string(claim.key.job), JobdField.runID: .string(claim.runID),
                                          JobdField.result: .string(RunResult.lost.rawValue), JobdField.node: .string(claim.node),
                                          JobdField.elapseUSec: .string(String(claim.key.elapse.microseconds))])
                perform(admission.lostElsewhere(job: claim.key.job, elapse: claim.key.elapse, attempt: claim.key.attempt,
                                                now: now))
            }
        case .pruned(let count):
            let retention = fleet.map { "\($0.settings.retention)" } ?? "MaxRetentionSec="
            logger.info("fleet: removed \(count) claim(s) of elapses older than \(retention) (MaxRetentionSec=; each job's latest claim stays)",
                        metadata: [JobdField.node: .string(node)])
        }
        notifier.send(.status(status))
    }

    private static func milliseconds(_ microseconds: Int64) -> String {
        let value = Double(microseconds) / 1_000
        return (value >= 0 ? "+" : "") + String(Int64(value.rounded())) + "ms"
    }
}

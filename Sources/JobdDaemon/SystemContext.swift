import Glibc
import JobdCalendar
import JobdConfig
import JobdPolicy
import JobdFleet
import JobdHandover
import JobdLocks
import JobdRunner
import JobdScheduler
import Logging

/// Work the main loop hands off (runs, mail, fleet claims): each closure becomes a child task of
/// the daemon's task group, through ``run()``, which that group runs.
final class BackgroundTasks: Sendable {
    private let work: AsyncStream<@Sendable () async -> Void>
    private let continuation: AsyncStream<@Sendable () async -> Void>.Continuation

    init() {
        (work, continuation) = AsyncStream.makeStream()
    }

    func spawn(_ body: @escaping @Sendable () async -> Void) {
        continuation.yield(body)
    }

    /// Runs what is spawned until cancelled, then waits for what runs.
    func run() async {
        await withDiscardingTaskGroup { group in
            for await body in work { group.addTask { await body() } }
        }
    }
}

/// Runs through jobd's ``JobRunner``, each run as a task of its own.
struct TaskLauncher: RunLauncher {
    let runner: JobRunner
    let tasks: BackgroundTasks

    var tracking: RunTracking { runner.tracking }
    var outputTaps: RunOutputTaps { runner.outputTaps }
    var outputBudget: OutputBudget { runner.outputBudget }
    var host: any HostFacts { runner.host }

    func launch(
        _ definition: JobDefinition, as request: RunRequest, context: [String: String], fields: [String: String],
        sendmail: String, fence: RunFence?, ended: @escaping @Sendable (RunOutcome) -> Void
    ) {
        let runner = self.runner
        tasks.spawn {
            await runner.run(definition, runID: request.runID, invocationID: request.invocationID, context: context, fields: fields,
                             fence: fence, sendmail: sendmail, ended: ended)
        }
    }

    func adopt(
        _ definition: JobDefinition, as request: RunRequest, adopted: AdoptedProcess, fields: [String: String], sendmail: String,
        fence: RunFence?, ended: @escaping @Sendable (RunOutcome) -> Void
    ) {
        let runner = self.runner
        tasks.spawn {
            await runner.run(definition, runID: request.runID, invocationID: request.invocationID, fields: fields, fence: fence,
                             adopted: adopted, sendmail: sendmail, ended: ended)
        }
    }

    func handOver() -> [JobRunner.HandedRun] { runner.handOver() }

    func mailOverdue(_ definition: JobDefinition, deadline: RealtimeInstant, lastSuccess: RealtimeInstant?, sendmail: String) {
        let runner = self.runner
        tasks.spawn { await runner.mailOverdue(definition, deadline: deadline, lastSuccess: lastSuccess, sendmail: sendmail) }
    }

    func stop(job: String, reason: StopReason) { _ = runner.registry.stop(job: job, reason: reason) }
    func stopAll(reason: StopReason, within: TimeSpan?) { _ = runner.registry.stopAll(reason: reason, within: within) }
    func pid(of runID: UInt64) -> Int32? { runner.registry.pid(of: runID) }
}

/// The configuration directory and the users' own jobs, read on a thread of its own.
struct DirectorySource: ConfigurationSource {
    let directory: JobDirectory
    let users: UserJobStore
    /// cron's files, read when jobd.conf's `[Cron]` says so.
    let cron: CronSources
    /// Called on the loader's thread before it reads (``DaemonFaults/slowLoad``): as slow as a hung mount.
    let beforeRead: (@Sendable () -> Void)?
    let logger: Logger

    func read(using cache: JobFileCache, done: @escaping @Sendable (JobdConfiguration, JobFileCache) -> Void) {
        let (directory, users, cron, beforeRead, logger) = (directory, users, self.cron, beforeRead, logger)
        let read = { @Sendable in
            var cache = cache
            var configuration = directory.read(using: &cache)
            configuration.addUserJobs(from: users, configDirectory: directory.path)
            for warning in configuration.addCronJobs(from: cron) { logger.warning("\(warning.warningLine)") }
            done(configuration, cache)
        }
        do {
            try DetachedThread.start {
                beforeRead?()
                read()
            }
        } catch {
            // No thread to be had: read here, as before, rather than not reload at all.
            logger.warning("reloading on the main loop: \(error)")
            read()
        }
    }
}

/// Claims in the fleet's database, each as a task of its own.
struct DatabaseClaims: FleetClaims {
    let database: FleetDatabase
    let tasks: BackgroundTasks
    /// Where the fences of this node's claimed runs are.
    let fences: FenceFiles

    var settings: FleetSettings { database.settings }

    func claim(_ key: ClaimKey, for request: RunRequest, verdict: @escaping @Sendable (ClaimVerdict) -> Void) {
        let database = self.database
        tasks.spawn { verdict(await database.claim(key, runID: request.invocationID)) }
    }

    /// The end is queued now: jobd's stop writes it even if the task that writes it never starts.
    func finish(runID: String, result: String, endedAt: RealtimeInstant?) {
        let database = self.database
        database.reportEnd(runID: runID, result: result, endedAt: endedAt)
        tasks.spawn { await database.writeReportedEnds() }
    }

    func fence(ofRun runID: String) -> RunFence? {
        fences.fence(of: runID)
    }

    func leftFences() -> [String] {
        fences.names()
    }

    func carryOver(_ decision: ClaimCarryOver, jobs: [String: String], result: String) {
        // Removed before the kept claims are renewed: nothing renews these, and their runs stop now.
        for name in decision.removedFences { fences.remove(name) }
        let database = self.database
        let kept = decision.kept.compactMap { runID, claim in jobs[runID].map { (runID, ClaimKey(claim, job: $0)) } }
        let released = decision.released.compactMap { runID, claim in jobs[runID].map { (runID, ClaimKey(claim, job: $0)) } }
        guard !kept.isEmpty || !released.isEmpty else { return }
        tasks.spawn {
            for (runID, key) in kept { await database.adopt(runID: runID, key: key) }
            for (runID, key) in released { await database.release(runID: runID, key: key, result: result) }
        }
    }
}

extension ClaimKey {
    /// The key of a claim an in-flight record kept, for `job`.
    init(_ claim: HeldClaim, job: String) {
        self.init(job: job, elapse: RealtimeInstant(microseconds: claim.elapseUSec), attempt: claim.attempt)
    }
}

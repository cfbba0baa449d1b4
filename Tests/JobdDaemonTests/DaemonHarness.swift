import InMemoryLogging
import JobdCalendar
import JobdConfig
import JobdControl
import JobdDaemon
import JobdFleet
import JobdHandover
import JobdRunner
import JobdScheduler
import JobdTestKit
import JobdTimers
import Logging
import SystemdKit
import UnixSignals

/// jobd's main loop with doubles for everything it reads and starts: a manual timer queue and
/// clock that move only when a test says, a launcher that starts no process (a test ends its runs),
/// a configuration source whose reads finish when a test says, a state store and a fleet in memory.
/// Events the loop posts to itself are handled by ``pump()``, in order, on the test's thread.
final class DaemonHarness {
    static let start = MonotonicInstant(nanoseconds: 1_000_000_000_000)
    /// 2026-01-01T00:00:00Z, in microseconds.
    static let wallStart: Int64 = 1_767_225_600_000_000

    let log = InMemoryLogHandler()
    let timers = RecordingTimerObserver()
    let queue: TimerQueue
    let launcher = FakeLauncher()
    let source = FakeSource()
    let store: FakeStore
    let fleet: FakeFleet?
    let scheduler: Scheduler
    let loop: MainLoop
    private let elapsed = Guarded<Int64>(0)
    /// How far the wall clock was stepped on its own, in microseconds (``stepWallClock(by:)``).
    private let wallStep = Guarded<Int64>(0)
    /// How often the loop gave free memory back (``DaemonContext/trimMemory``).
    let trims = Guarded<Int>(0)
    private let posted = Guarded<[DaemonEvent]>([])
    /// Whether the loop said it is done (``MainLoop/handle(_:)`` returned `false`).
    private(set) var ended = false

    init(
        _ jobs: [JobDefinition], settings: DaemonSettings = DaemonSettings(), broken: [JobdConfiguration.BrokenJob] = [],
        disabled: Set<String> = [], fleet node: String? = nil, store: FakeStore = FakeStore(), restored: [String: JobHistory] = [:],
        notifySocket: String? = nil, context configure: (inout DaemonContext) -> Void = { _ in }
    ) {
        self.store = store
        queue = TimerQueue.manual(observer: timers)
        let handler = log
        var logger = Logger(label: "jobd-test") { _ in handler }
        logger.logLevel = .debug
        let (elapsed, wallStep) = (self.elapsed, self.wallStep)
        let clocks = Scheduler.Clocks(
            monotonic: { Self.start + .nanoseconds(elapsed.withLock { $0 }) },
            realtime: { RealtimeInstant(microseconds: Self.wallStart + elapsed.withLock { $0 } / 1_000 + wallStep.withLock { $0 }) })
        let posted = self.posted
        let post: @Sendable (DaemonEvent) -> Void = { event in posted.withLock { $0.append(event) } }
        scheduler = Scheduler(queue: queue, daemonStart: Self.start, logger: logger, clocks: clocks) { post(.due($0)) }
        fleet = node.map { FakeFleet(node: $0) }
        store.disabled.withLock { $0 = disabled }
        var context = DaemonContext(
            clocks: clocks, configuration: source, store: store, launcher: launcher, fleet: fleet, post: post)
        let trims = self.trims
        context.trimMemory = { trims.withLock { $0 += 1 } }
        configure(&context)
        let invocations = Guarded<Int>(0)
        loop = MainLoop(
            options: DaemonOptions(configDirectory: "/etc/jobd", runtimeDirectory: "/run/jobd", stateDirectory: "/var/lib/jobd",
                                   instance: "test", environment: [:]),
            settings: settings, logger: logger, scheduler: scheduler,
            notifier: ServiceNotifier(logger: logger, notifier: Notifier(address: notifySocket)), context: context
        ) {
            invocations.withLock { $0 += 1; return "invocation-\($0)" }
        }
        // What an earlier jobd kept in its state directory, as Daemon restores it before the first load.
        scheduler.restore(restored)
        let configuration = JobdConfiguration(jobs: jobs, broken: broken, settings: settings)
        loop.start(configuration, jobFiles: JobFileCache())
        pump()
    }

    // MARK: Time and events

    var now: MonotonicInstant { Self.start + .nanoseconds(elapsed.withLock { $0 }) }

    /// Handles every event posted so far, and those they post in turn.
    func pump() {
        while true {
            let events = posted.withLock { events in
                defer { events.removeAll() }
                return events
            }
            guard !events.isEmpty else { return }
            for event in events where !loop.handle(event) { ended = true }
        }
    }

    /// Moves the clocks on by `duration`, fires the timers due by then, and handles what follows.
    func advance(_ duration: Duration) {
        elapsed.withLock { $0 += Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000 }
        queue.fireDue(now: now)
        pump()
    }

    /// Steps the wall clock alone by `seconds` (set by hand, or a resume from suspend, which the
    /// kernel reports alike), tells the loop, and handles what follows.
    func stepWallClock(by seconds: Int64) {
        wallStep.withLock { $0 += seconds * 1_000_000 }
        send(.wallClockSet)
        queue.fireDue(now: now)
        pump()
    }

    /// Handles `event` and what it posts.
    func send(_ event: DaemonEvent) {
        if !loop.handle(event) { ended = true }
        pump()
    }

    // MARK: Runs

    /// The runs started and not yet ended, oldest first; of `job` only when given.
    func running(_ job: String? = nil) -> [FakeLauncher.Launch] {
        launcher.launches.withLock { $0 }.filter { !$0.isEnded && (job == nil || $0.request.job == job) }
    }

    /// Every run started, of `job` only when given.
    func started(_ job: String? = nil) -> [FakeLauncher.Launch] {
        launcher.launches.withLock { $0 }.filter { job == nil || $0.request.job == job }
    }

    /// Ends the oldest run in flight of `job` (the launcher reports it), then handles what follows.
    @discardableResult
    func end(_ job: String, _ termination: RunTermination = .exited(0), stopped: StopReason? = nil) -> RunOutcome? {
        guard let launch = running(job).first else { return nil }
        let result = RunOutcome.result(of: termination, stopReason: stopped, ignoresFailure: false)
        let outcome = RunOutcome(
            runID: launch.request.runID, invocationID: launch.request.invocationID, job: job, termination: termination, result: result,
            duration: TimeSpan(microseconds: UInt64(max(0, now.duration(since: launch.startedAt).nanosecondsSaturated / 1_000))),
            stopReason: stopped)
        launcher.markEnded(launch.request.runID)
        launch.ended(outcome)
        pump()
        return outcome
    }

    // MARK: Configuration

    /// SIGHUP: a reload begins; its read finishes when ``finishRead(_:broken:settings:fatal:)`` says.
    func hangUp() {
        send(.signal(.sighup))
    }

    /// The read in progress returns `jobs` (and `broken`, `settings`, or a `fatal` error).
    func finishRead(
        _ jobs: [JobDefinition], broken: [JobdConfiguration.BrokenJob] = [], settings: DaemonSettings? = DaemonSettings(),
        fatal: ConfigError? = nil
    ) {
        let configuration = JobdConfiguration(jobs: jobs, broken: broken, settings: settings, fatal: fatal)
        source.finish(with: configuration)
        pump()
    }

    /// A whole reload: SIGHUP, and the read returns `jobs`.
    func reload(_ jobs: [JobDefinition], broken: [JobdConfiguration.BrokenJob] = [], settings: DaemonSettings? = DaemonSettings()) {
        hangUp()
        finishRead(jobs, broken: broken, settings: settings)
    }

    // MARK: Control

    /// Sends a control request as a client would; returns the reply to read.
    @discardableResult
    func control(
        _ command: ControlRequest.Command, _ job: String? = nil, wait: Bool? = nil, followRetries: Bool? = nil, brief: Bool? = nil,
        output: Bool = false
    ) -> ClientReply {
        let reply = ControlReply()
        send(.control(ControlRequest(command: command, job: job, wait: wait, output: output, brief: brief, followRetries: followRetries), reply))
        return ClientReply(reply: reply)
    }

    // MARK: The journal

    /// The entries of `event` (`run.skip`, `reload.done`, …), of `job` only when given.
    func events(_ event: String, job: String? = nil) -> [InMemoryLogHandler.Entry] {
        log.entries.filter {
            $0.metadata["JOBD_EVENT"] == .string(event) && (job == nil || $0.metadata["JOB"] == .string(job!))
        }
    }

    /// The reasons of the `run.skip` entries of `job`.
    func skipReasons(_ job: String) -> [String] {
        events("run.skip", job: job).compactMap { entry in
            if case .string(let reason) = entry.metadata["JOBD_REASON"] { reason } else { nil }
        }
    }

    // MARK: Definitions

    static func job(
        _ name: String, every seconds: UInt64 = 60, overlap: OverlapPolicy = .skip, command: String = "/bin/true",
        _ configure: (inout JobDefinition) -> Void = { _ in }
    ) -> JobDefinition {
        var definition = JobDefinition(
            name: name, path: "/etc/jobd/jobs.d/\(name).job", triggers: [.unitActive(.seconds(seconds))],
            command: try! ExecCommand.parse(command))
        definition.overlap = overlap
        configure(&definition)
        return definition
    }

    static func brokenFile(_ name: String, _ message: String = "Trigger: expected a time span") -> JobdConfiguration.BrokenJob {
        let path = "/etc/jobd/jobs.d/\(name).job"
        return JobdConfiguration.BrokenJob(name: name, path: path, errors: [ConfigError(file: path, line: 3, message: message)])
    }
}

/// What a client of a control request has read so far.
struct ClientReply {
    let reply: ControlReply
    private let read = Guarded<(responses: [ControlResponse], finished: Bool)>(([], false))

    init(reply: ControlReply) {
        self.reply = reply
    }

    /// Every response sent so far.
    var responses: [ControlResponse] {
        let (lines, finished) = reply.takeSent()
        return read.withLock { read in
            read.responses += lines.map { try! ControlResponse(jsonLine: Array($0.dropLast())) }
            read.finished = read.finished || finished
            return read.responses
        }
    }

    /// The kinds of every response sent so far.
    var kinds: [ControlResponse.Kind] { responses.map(\.type) }

    /// Whether the connection is done (jobd finished the reply).
    var isFinished: Bool {
        _ = responses
        return read.withLock { $0.finished }
    }
}

/// Starts no process: records each run, which the test ends (``DaemonHarness/end(_:_:stopped:)``).
final class FakeLauncher: RunLauncher {
    struct Launch: Sendable {
        let definition: JobDefinition
        let request: RunRequest
        let context: [String: String]
        let fields: [String: String]
        let startedAt: MonotonicInstant
        /// The fence a claimed run's supervisor is to watch (issue 28); `nil` for any other run.
        var fence: RunFence?
        let ended: @Sendable (RunOutcome) -> Void
        var isEnded = false
    }

    let launches = Guarded<[Launch]>([])
    /// Every stop asked for: of one job, or of all (`nil`).
    let stops = Guarded<[(job: String?, reason: StopReason)]>([])
    /// The bound of the last stop of every run (jobd's stop: `StopTimeoutMaxSec=`).
    let stopAllWithin = Guarded<TimeSpan?>(nil)
    let tracking = RunTracking.processGroups(reason: "the tests start no process")
    let outputTaps = RunOutputTaps()
    let outputBudget = OutputBudget()
    /// A machine where no path exists: a condition on one is judged here, never on the machine the test runs on.
    let host: any HostFacts = FixedHostFacts()
    /// A line every run writes the moment it is launched, on the launching thread, as a real run's
    /// first line can reach its follower before the main loop goes on.
    let lineAtLaunch = Guarded<String?>(nil)

    func launch(
        _ definition: JobDefinition, as request: RunRequest, context: [String: String], fields: [String: String],
        sendmail: String, fence: RunFence?, ended: @escaping @Sendable (RunOutcome) -> Void
    ) {
        let startedAt = request.dueAt
        launches.withLock {
            $0.append(Launch(definition: definition, request: request, context: context, fields: fields, startedAt: startedAt,
                             fence: fence, ended: ended))
        }
        if let line = lineAtLaunch.withLock({ $0 }) {
            outputTaps.deliver(runID: request.runID, line: line, standardOutput: true)
        }
    }

    func markEnded(_ runID: UInt64) {
        launches.withLock { launches in
            for index in launches.indices where launches[index].request.runID == runID { launches[index].isEnded = true }
        }
    }

    /// Every overdue alarm mailed (`ExpectSuccessWithinSec=` with `MailTo=`): the job, and when it fell overdue.
    let overdueMails = Guarded<[(job: String, recipients: [String], deadline: RealtimeInstant)]>([])

    func mailOverdue(_ definition: JobDefinition, deadline: RealtimeInstant, lastSuccess: RealtimeInstant?, sendmail: String) {
        overdueMails.withLock { $0.append((definition.name, definition.mailTo, deadline)) }
    }

    func stop(job: String, reason: StopReason) { stops.withLock { $0.append((job, reason)) } }
    func stopAll(reason: StopReason, within: TimeSpan?) {
        stops.withLock { $0.append((nil, reason)) }
        stopAllWithin.withLock { $0 = within }
    }
    func pid(of runID: UInt64) -> Int32? { 4_000 + Int32(runID) }
}

/// Reads finish when the test says (``finish(with:)``), as a slow file system would make them.
final class FakeSource: ConfigurationSource {
    private let pending = Guarded<[@Sendable (JobdConfiguration, JobFileCache) -> Void]>([])

    /// Reads begun and not finished.
    var reading: Int { pending.withLock { $0.count } }

    func read(using cache: JobFileCache, done: @escaping @Sendable (JobdConfiguration, JobFileCache) -> Void) {
        pending.withLock { $0.append(done) }
    }

    /// The oldest read in progress returns `configuration`.
    func finish(with configuration: JobdConfiguration) {
        let done = pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        done?(configuration, JobFileCache())
    }
}

final class FakeStore: DaemonStateStore {
    let disabled = Guarded<Set<String>>([])
    let histories = Guarded<[String: JobHistory?]>([:])

    func disabledJobs() -> Set<String> { disabled.withLock { $0 } }

    func setDisabled(_ job: String, _ isDisabled: Bool) {
        disabled.withLock { if isDisabled { $0.insert(job) } else { $0.remove(job) } }
    }

    func saveHistory(of job: String, _ history: JobHistory?) {
        histories.withLock { $0[job] = .some(history) }
    }

    /// The runs kept as in flight, by `JOBD_RUN_ID`: what a jobd that stopped now would leave.
    let runs = Guarded<[String: RunInFlightRecord]>([:])

    func runStarted(_ run: RunInFlightRecord) { runs.withLock { $0[run.invocationID] = run } }
    func runEnded(_ invocationID: String) { runs.withLock { $0[invocationID] = nil } }
    func abandonedRuns() -> [RunInFlightRecord] { runs.withLock { $0.values.sorted { $0.invocationID < $1.invocationID } } }
}

/// Claims answered when the test says, as a slow database would answer them.
final class FakeFleet: FleetClaims {
    struct Claim: Sendable {
        let key: ClaimKey
        let request: RunRequest
        let verdict: @Sendable (ClaimVerdict) -> Void
    }

    let settings: FleetSettings
    let claims = Guarded<[Claim]>([])
    let finished = Guarded<[(runID: String, result: String)]>([])

    init(node: String) {
        settings = FleetSettings(database: "postgresql://fleet.invalid/jobd", node: node)
    }

    func claim(_ key: ClaimKey, for request: RunRequest, verdict: @escaping @Sendable (ClaimVerdict) -> Void) {
        claims.withLock { $0.append(Claim(key: key, request: request, verdict: verdict)) }
    }

    func finish(runID: String, result: String, endedAt: RealtimeInstant?) {
        finished.withLock { $0.append((runID, result)) }
    }

    /// The fences a test checks: where a fleet run's supervisor would watch its deadline.
    func fence(ofRun runID: String) -> RunFence? {
        RunFence(path: "/run/fleet.invalid/fence/" + runID)
    }

    /// What each starting loop carried over of an earlier jobd's claims (``ClaimCarryOver``).
    let carried = Guarded<[ClaimCarryOver]>([])

    func carryOver(_ decision: ClaimCarryOver, jobs: [String: String], result: String) {
        carried.withLock { $0.append(decision) }
    }

    func leftFences() -> [String] { [] }

    /// Answers the oldest claim not answered yet.
    func answer(_ verdict: ClaimVerdict) {
        let claim = claims.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        claim?.verdict(verdict)
    }
}

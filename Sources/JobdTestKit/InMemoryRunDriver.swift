import Glibc
package import JobdConfig
package import JobdRunner
package import JobdTimers

/// A ``RunDriver`` that starts no process and reads no clock: each step does what the test's
/// ``Script`` says and is recorded (``steps``), a spawned process runs until the test ends it
/// (``exit(_:_:)``) or a signal the script names does, and time passes when the test advances it
/// (``advance(by:)``). A run through ``JobRunner`` then takes milliseconds.
package final class InMemoryRunDriver: RunDriver {
    package struct Script: Sendable {
        package var account: Account?
        package var accountFailure: String?
        package var environmentFailure: String?
        /// Runs are tracked by cgroup (at `/runs/run-<JOBD_RUN_ID>`), or by process group.
        package var cgroups = false
        package var cgroupFailure: String?
        package var privateTmpFailure: String?
        package var spawnFailure: String?
        /// What the process writes, at once.
        package var output: [String] = []
        /// The end a signal brings the process to; a signal not named here is ignored.
        package var endsOn: [Int32: RunTermination] = [SIGKILL: .killed(signal: SIGKILL)]
        /// Processes left in the run's process group or cgroup when its main process ends.
        package var leftovers = 0
        /// Whether the leftovers go at SIGTERM (or only at SIGKILL).
        package var leftoversGoOnTerm = true
        /// The fence stopped the run, which ended at this instant (wall clock µs).
        package var fenceStoppedAt: Int64?
        package var usage: RunUsage?
        package var oomKills: UInt64 = 0

        package init() {}
    }

    /// A timer armed through ``schedule(after:_:)``, or a sleep of the driver's own steps.
    private struct Sleeper {
        var deadline: UInt64
        var fire: @Sendable () -> Void
    }

    private struct State {
        var script: Script
        var now: UInt64 = 1_000_000
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeper = 0
        /// Each running process's report of its end.
        var running: [UInt64: @Sendable (RunTermination) -> Void] = [:]
        /// Processes that ended, whose end is not reported yet (``exitUnheard(_:_:)``).
        var unheard: [UInt64: (report: @Sendable (RunTermination) -> Void, termination: RunTermination)] = [:]
        /// A signal sent before the process had one: it gets it as it starts.
        var early: [UInt64: Int32] = [:]
        var steps: [String] = []
        var waiters: [(ready: @Sendable (InMemoryRunDriver.View) -> Bool, resume: CheckedContinuation<Void, Never>)] = []
    }

    /// What a test may wait for (``until(_:)``).
    package struct View: Sendable {
        package var steps: [String]
        /// How many timers are armed (`RuntimeMaxSec=`, `TimeoutStopSec=`) or sleeps in progress.
        package var sleeping: Int
        package var running: Set<UInt64>
    }

    package let host: any HostFacts
    private let state: Guarded<State>

    package init(host: any HostFacts = FixedHostFacts(), script: Script = Script()) {
        self.host = host
        state = Guarded(State(script: script))
    }

    /// Each step performed, in order: `resolveAccount`, `spawn`, `signal 15`, `removeCgroup keep`…
    package var steps: [String] { state.withLock { $0.steps } }

    /// How many timers are armed or sleeps in progress now.
    package var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// Waits until `ready` holds of what the driver did.
    package func until(_ ready: @escaping @Sendable (View) -> Bool) async {
        await withCheckedContinuation { resume in
            let now = state.withLock { state -> Bool in
                if ready(Self.view(state)) { return true }
                state.waiters.append((ready, resume))
                return false
            }
            if now { resume.resume() }
        }
    }

    /// Ends run `runID`'s process as `termination`, once it runs.
    package func exit(_ runID: UInt64, _ termination: RunTermination) async {
        await until { $0.running.contains(runID) }
        let process = state.withLock { $0.running.removeValue(forKey: runID) }
        process?(termination)
        changed()
    }

    /// Ends run `runID`'s process as `termination` once it runs, but reports its end only at
    /// ``hear(_:)``: as a process whose exit the reactor has not seen yet. Signals no longer reach it.
    package func exitUnheard(_ runID: UInt64, _ termination: RunTermination) async {
        await until { $0.running.contains(runID) }
        state.withLock { state in
            if let process = state.running.removeValue(forKey: runID) { state.unheard[runID] = (process, termination) }
        }
        changed()
    }

    /// Reports the end of a process ended by ``exitUnheard(_:_:)``.
    package func hear(_ runID: UInt64) {
        let ended = state.withLock { $0.unheard.removeValue(forKey: runID) }
        ended.map { $0.report($0.termination) }
        changed()
    }

    /// Whether the process of pid `pid` (1000 + its run's id) ended unheard.
    func hasEnded(_ pid: Int32) -> Bool {
        state.withLock { $0.unheard[UInt64(max(0, pid - 1_000))] != nil }
    }

    /// Lets `duration` pass: every sleep due by then ends.
    package func advance(by duration: TimeSpan) {
        let due = state.withLock { state -> [@Sendable () -> Void] in
            state.now += duration.microseconds
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }.map(\.value.fire)
        }
        for fire in due { fire() }
        changed()
    }

    private static func view(_ state: State) -> View {
        View(steps: state.steps, sleeping: state.sleepers.count, running: Set(state.running.keys))
    }

    func record(_ step: String) {
        state.withLock { $0.steps.append(step) }
        changed()
    }

    func stateScript() -> Script { state.withLock { $0.script } }

    /// The process of run `runID` runs until ``exit(_:_:)`` or a signal ends it, then calls
    /// `ended`; one signalled before it ran gets the signal now.
    func run(_ runID: UInt64, ended: @escaping @Sendable (RunTermination) -> Void) {
        let early = state.withLock { state -> RunTermination? in
            if let early = state.early.removeValue(forKey: runID), let ending = state.script.endsOn[early] { return ending }
            state.running[runID] = ended
            return nil
        }
        if let early { ended(early) }
        changed()
    }

    func deliver(_ signal: Int32, to runID: UInt64) {
        let ended = state.withLock { state -> (@Sendable (RunTermination) -> Void, RunTermination)? in
            guard let process = state.running[runID] else {
                state.early[runID] = signal
                return nil
            }
            guard let ending = state.script.endsOn[signal] else { return nil }
            state.running[runID] = nil
            return (process, ending)
        }
        if let (process, ending) = ended { process(ending) }
        changed()
    }

    /// Wakes the waiters whose condition now holds.
    private func changed() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let view = Self.view(state)
            let (ready, waiting) = (state.waiters.filter { $0.ready(view) }, state.waiters.filter { !$0.ready(view) })
            state.waiters = waiting
            return ready.map(\.resume)
        }
        for waiter in ready { waiter.resume() }
    }

    package func now() -> MonotonicInstant {
        MonotonicInstant(nanoseconds: state.withLock { $0.now } * 1_000)
    }

    /// Arms a timer that fires when the test advances the clock past `duration` (never, if infinite).
    package func schedule(after duration: TimeSpan, _ fire: @escaping @Sendable () -> Void) -> RunDriverWatch {
        let id = state.withLock { state in
            state.nextSleeper += 1
            let deadline = duration.isInfinite ? UInt64.max : state.now + duration.microseconds
            state.sleepers[state.nextSleeper] = Sleeper(deadline: deadline, fire: fire)
            return state.nextSleeper
        }
        changed()
        return RunDriverWatch { [self] in
            state.withLock { _ = $0.sleepers.removeValue(forKey: id) }
            changed()
        }
    }

    /// Waits `duration` of the test's clock; throws when cancelled.
    func sleep(for duration: TimeSpan) async throws {
        // Decided once: by the timer (true) or by cancellation (false), whichever comes first.
        let wake = Guarded<(waiting: CheckedContinuation<Bool, Never>?, woken: Bool?)>((nil, nil))
        let finish: @Sendable (Bool) -> Void = { woken in
            let waiting = wake.withLock { wake -> CheckedContinuation<Bool, Never>? in
                guard wake.woken == nil else { return nil }
                wake.woken = woken
                defer { wake.waiting = nil }
                return wake.waiting
            }
            waiting?.resume(returning: woken)
        }
        let timer = schedule(after: duration) { finish(true) }
        let woken = await withTaskCancellationHandler {
            await withCheckedContinuation { waiting in
                let decided = wake.withLock { wake -> Bool? in
                    if let woken = wake.woken { return woken }
                    wake.waiting = waiting
                    return nil
                }
                if let decided { waiting.resume(returning: decided) }
            }
        } onCancel: {
            finish(false)
        }
        timer.cancel()
        if !woken { throw CancellationError() }
    }
}

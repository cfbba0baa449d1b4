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

    private struct Sleeper {
        var deadline: UInt64
        var wake: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var script: Script
        var now: UInt64 = 1_000_000
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeper = 0
        var running: [UInt64: CheckedContinuation<RunTermination, Never>] = [:]
        /// A signal sent before the process had one: it gets it as it starts.
        var early: [UInt64: Int32] = [:]
        var steps: [String] = []
        var waiters: [(ready: @Sendable (InMemoryRunDriver.View) -> Bool, resume: CheckedContinuation<Void, Never>)] = []
    }

    /// What a test may wait for (``until(_:)``).
    package struct View: Sendable {
        package var steps: [String]
        /// How many sleeps are in progress (`RuntimeMaxSec=`, `TimeoutStopSec=`).
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
        process?.resume(returning: termination)
        changed()
    }

    /// Lets `duration` pass: every sleep due by then ends.
    package func advance(by duration: TimeSpan) {
        let due = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.now += duration.microseconds
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.sorted { $0.value.deadline < $1.value.deadline }.map(\.value.wake)
        }
        for wake in due { wake.resume(returning: true) }
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

    /// The process of run `runID` runs until ``exit(_:_:)`` or a signal ends it; one signalled
    /// before it ran gets the signal now.
    func run(_ runID: UInt64) async -> RunTermination {
        let termination = await withCheckedContinuation { process in
            let ended = state.withLock { state -> RunTermination? in
                if let early = state.early.removeValue(forKey: runID), let ending = state.script.endsOn[early] { return ending }
                state.running[runID] = process
                return nil
            }
            if let ended { process.resume(returning: ended) }
            changed()
        }
        changed()
        return termination
    }

    func deliver(_ signal: Int32, to runID: UInt64) {
        let ended = state.withLock { state -> (CheckedContinuation<RunTermination, Never>, RunTermination)? in
            guard let process = state.running[runID] else {
                state.early[runID] = signal
                return nil
            }
            guard let ending = state.script.endsOn[signal] else { return nil }
            state.running[runID] = nil
            return (process, ending)
        }
        ended?.0.resume(returning: ended!.1)
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

    package func sleep(for duration: TimeSpan) async throws {
        let id = state.withLock { state in
            state.nextSleeper += 1
            return state.nextSleeper
        }
        let woken = await withTaskCancellationHandler {
            await withCheckedContinuation { wake in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    let deadline = duration.isInfinite ? UInt64.max : state.now + duration.microseconds
                    state.sleepers[id] = Sleeper(deadline: deadline, wake: wake)
                    return false
                }
                if cancelled { wake.resume(returning: false) }
                changed()
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.wake.resume(returning: false)
        }
        changed()
        if !woken { throw CancellationError() }
    }
}

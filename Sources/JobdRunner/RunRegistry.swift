import Glibc
package import JobdConfig
import JobdLocks

/// The runs in flight and their process groups or cgroups, so that jobd can stop any run it
/// started. Each run is its own session, so its process group id is its pid, and signalling the
/// group reaches the processes it started too; where the run has a cgroup (``RunTracking``), every
/// process in it is signalled instead, also one that left the group.
///
/// Stopping a run posts the request to the run itself (see ``JobRunner``), so that every stop
/// takes the same path: SIGTERM, then SIGKILL once the job's `TimeoutStopSec=` has passed.
package final class RunRegistry: Sendable {
    private struct Entry {
        var job: String
        var pid: pid_t?
        var cgroup: RunCgroup?
        /// The last signal sent; a process that appears after it was sent gets it at once.
        var signal: Int32?
        /// Posts a stop request to the run; called outside the registry's lock.
        var stop: @Sendable (StopReason) -> Void
    }

    private struct State {
        var runs: [UInt64: Entry] = [:]
        /// Once set, every run, also one that registers from now on, is asked to stop for it.
        var stopAll: StopReason?
        /// When every run stopped by ``stopAll(reason:within:now:)`` gets SIGKILL at the latest.
        var killDeadline: ContinuousClock.Instant?
    }

    private let state = LockedBox(State())

    package init() {}

    /// Runs in flight that have a process.
    package var count: Int { state.withLock { $0.runs.values.count { $0.pid != nil } } }

    /// The process of a run in flight, once it has one.
    package func pid(of runID: UInt64) -> Int32? { state.withLock { $0.runs[runID]?.pid } }

    /// The cgroup of a run in flight, once its process is started in it.
    package func cgroup(of runID: UInt64) -> RunCgroup? { state.withLock { $0.runs[runID]?.cgroup } }

    /// Adds a run about to start; `stop` is called with each request to stop it (at once with
    /// ``stopAll(reason:within:now:)``'s, if jobd is stopping), until it is removed.
    func add(runID: UInt64, job: String, stop: @escaping @Sendable (StopReason) -> Void) {
        let stopAll = state.withLock { state in
            state.runs[runID] = Entry(job: job, stop: stop)
            return state.stopAll
        }
        if let stopAll { stop(stopAll) }
    }

    /// Records the run's process; if the run was signalled before it had one, the signal goes now.
    func started(runID: UInt64, pid: pid_t, cgroup: RunCgroup?) {
        let late = state.withLock { state -> Int32? in
            state.runs[runID]?.pid = pid
            state.runs[runID]?.cgroup = cgroup
            return state.runs[runID]?.signal
        }
        if let late { Self.send(late, pid: pid, cgroup: cgroup) }
    }

    /// Forgets a run whose process has been reaped.
    func remove(runID: UInt64) {
        state.withLock { state in
            state.runs.removeValue(forKey: runID)
            // The table keeps its largest burst's capacity otherwise (see RunAdmission.leave).
            if state.runs.isEmpty { state.runs = [:] }
        }
    }

    /// SIGTERM to the run's processes, and SIGCONT so that a stopped process sees it.
    func terminate(runID: UInt64) {
        signal(runID: runID, SIGTERM)
        if let (pid, cgroup) = state.withLock({ state in state.runs[runID].flatMap { entry in entry.pid.map { ($0, entry.cgroup) } } }) {
            Self.send(SIGCONT, pid: pid, cgroup: cgroup)
        }
    }

    /// SIGKILL to the run's processes.
    func kill(runID: UInt64) {
        signal(runID: runID, SIGKILL)
    }

    /// Sends `signal` to the run's processes (now, or as soon as it has one).
    private func signal(runID: UInt64, _ signal: Int32) {
        let target = state.withLock { state -> (pid_t, RunCgroup?)? in
            state.runs[runID]?.signal = signal
            return state.runs[runID].flatMap { entry in entry.pid.map { ($0, entry.cgroup) } }
        }
        if let (pid, cgroup) = target { Self.send(signal, pid: pid, cgroup: cgroup) }
    }

    /// `signal` to the run's main process (which may not have entered its cgroup yet), then to
    /// every other process in the run's cgroup, as systemd signals a service's; or to its process
    /// group. The main process only while it is jobd's child and has not ended: once the reactor
    /// reaped it (its end not yet heard), the pid may be another process's (``PidSignal``).
    static func send(_ signal: Int32, pid: pid_t, cgroup: RunCgroup?) {
        guard let cgroup else {
            killpg(pid, signal)
            return
        }
        let sent = PidSignal.send(signal, toChild: pid)
        if signal == SIGKILL {
            cgroup.kill()
        } else {
            // An adopted run's main process is the keeper's child: the cgroup's signal reaches it.
            cgroup.signal(signal, skipping: sent ? pid : 0)
        }
    }

    /// `grace`, a run's `TimeoutStopSec=`, at most until the deadline of ``stopAll(reason:within:now:)``
    /// as it stands at `now`.
    func bounded(_ grace: TimeSpan, now: ContinuousClock.Instant = .now) -> TimeSpan {
        guard let deadline = state.withLock({ $0.killDeadline }) else { return grace }
        let left = now.duration(to: deadline)
        let microseconds = max(0, left.components.seconds * 1_000_000 + left.components.attoseconds / 1_000_000_000_000)
        return min(grace, TimeSpan(microseconds: UInt64(microseconds)))
    }

    /// Asks every run of `job` to stop; returns how many were asked.
    @discardableResult
    package func stop(job: String, reason: StopReason) -> Int {
        let requests = state.withLock { $0.runs.values.filter { $0.job == job }.map(\.stop) }
        for request in requests { request(reason) }
        return requests.count
    }

    /// Asks every run to stop, also those that start from now on; returns how many were asked.
    /// With `within` (jobd's own stop, `StopTimeoutMaxSec=`), every run, whatever its
    /// `TimeoutStopSec=`, gets SIGKILL once `within` has passed from `now`, also its leftovers.
    @discardableResult
    package func stopAll(reason: StopReason, within: TimeSpan? = nil, now: ContinuousClock.Instant = .now) -> Int {
        let requests = state.withLock { state in
            state.stopAll = reason
            if let within, !within.isInfinite { state.killDeadline = now + within.duration }
            return state.runs.values.map(\.stop)
        }
        for request in requests { request(reason) }
        return requests.count
    }
}

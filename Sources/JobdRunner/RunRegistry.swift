import Glibc
import Synchronization

/// The runs in flight and their process groups, so that jobd can signal every job it started: at
/// shutdown, and when a run outlives its limit. Each run is its own session, so its process group
/// id is its pid, and signalling the group reaches its children too.
public final class RunRegistry: Sendable {
    private struct State {
        var groups: [UInt64: pid_t] = [:]
        /// Once set, a run that registers late (it was starting as shutdown began) is signalled at once.
        var lateSignal: Int32?
    }

    private let state = Mutex(State())

    public init() {}

    /// Runs in flight that have a process.
    public var count: Int { state.withLock { $0.groups.count } }

    func register(runID: UInt64, pid: pid_t) {
        let late = state.withLock { state -> Int32? in
            state.groups[runID] = pid
            return state.lateSignal
        }
        if let late { killpg(pid, late) }
    }

    func unregister(runID: UInt64) {
        _ = state.withLock { $0.groups.removeValue(forKey: runID) }
    }

    /// Sends `signal` to every run's process group; runs that register from now on get it too.
    /// Returns how many groups were signalled.
    @discardableResult
    public func signalAll(_ signal: Int32) -> Int {
        let groups = state.withLock { state in
            state.lateSignal = signal
            return Array(state.groups.values)
        }
        for group in groups { killpg(group, signal) }
        return groups.count
    }
}

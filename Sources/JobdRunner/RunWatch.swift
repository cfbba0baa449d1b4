import JobdConfig
import JobdLocks

/// The watch beside a run's process, without a task of its own (issue 39): the reasons to stop
/// the run (a request through ``RunRegistry``, `RuntimeMaxSec=`'s timer, an OOM kill) come here
/// from whichever thread has them, and the first is posted to the run, once, as a watcher task
/// returned the first. A request made before the watch begins (jobd stopping while the run is
/// prepared) waits for it, the newest only; once the watch ends (the process was reaped), nothing
/// more is posted, and its timers and watches are cancelled.
final class RunWatch: Sendable {
    private enum State {
        case waiting(pending: StopReason?)
        case watching([RunDriverWatch])
        case over
    }

    private let state = LockedBox(State.waiting(pending: nil))
    private let post: @Sendable (StopReason) -> Void

    /// `post` takes the reason to the run (its inbox); it is called outside the watch's lock.
    init(post: @escaping @Sendable (StopReason) -> Void) {
        self.post = post
    }

    /// A reason to stop the run, from any thread.
    func stop(_ reason: StopReason) {
        let (posted, cancelled) = state.withLock { state -> (Bool, [RunDriverWatch]) in
            switch state {
            case .waiting: state = .waiting(pending: reason); return (false, [])
            case .watching(let watches): state = .over; return (true, watches)
            case .over: return (false, [])
            }
        }
        for watch in cancelled { watch.cancel() }
        if posted { post(reason) }
    }

    /// Begins the watch with the run's timers and watches (armed to call ``stop(_:)``); a request
    /// that waited for it is posted now, and they are cancelled.
    func begin(_ watches: [RunDriverWatch]) {
        let pending = state.withLock { state -> StopReason?? in
            guard case .waiting(let pending) = state else { return .some(nil) }
            guard let pending else {
                state = .watching(watches)
                return .none
            }
            state = .over
            return pending
        }
        // `nil`: now watching. Otherwise the watch is over (a reason to post, or ended before it began).
        guard let pending else { return }
        for watch in watches { watch.cancel() }
        if let pending { post(pending) }
    }

    /// Ends the watch: the process was reaped, or the run is over.
    func end() {
        let cancelled = state.withLock { state -> [RunDriverWatch] in
            defer { state = .over }
            if case .watching(let watches) = state { return watches }
            return []
        }
        for watch in cancelled { watch.cancel() }
    }
}

package import Glibc
package import JobdConfig
import JobdLocks
package import JobdTimers

/// Each user's budget of journal entries for the output of their own jobs (issue 37), by uid: jobd
/// writes every run's output, so all of it spends jobd.service's one journald rate limit, and one
/// user's flood could have journald suppress root's entries. At most `burst` lines of a user's
/// runs go to the journal in each `interval` (`UserLogRateLimitBurst=` and
/// `UserLogRateLimitIntervalSec=` of jobd.conf, named after systemd's `LogRateLimit…=`); the rest
/// are counted, said once a run (`run.output-dropped`), and still reach `jobctl run --wait` and
/// the run's mail. Root's jobs are not counted. A budget is an account's (its uid recorded at
/// load, ``JobDefinition/owningUID``), never a name's: a name re-created for another account
/// starts with a budget of its own, and two names of one uid share one.
package final class OutputBudget: Sendable {
    package struct Limits: Sendable, Equatable {
        package var burst: Int
        package var interval: TimeSpan

        package init(burst: Int, interval: TimeSpan) {
            self.burst = burst
            self.interval = interval
        }
    }

    private struct State: Sendable {
        var limits: Limits?
        var windows: [uid_t: (start: MonotonicInstant, used: Int)] = [:]
        /// Each user's entries dropped since her last one logged (``takeEntry(uid:now:)``).
        var entriesDropped: [uid_t: Int] = [:]
    }

    /// What becomes of one of a user's `run.skip`, `run.wait` or `run.retry` entries.
    package enum EntryFate: Sendable, Equatable {
        /// Logged; `droppedBefore` of hers were dropped since her last one logged (to be said first).
        case log(droppedBefore: Int)
        /// Dropped, the first since her last one logged: to be said once.
        case dropFirst
        /// Dropped and counted, silently.
        case drop
    }

    private let state = LockedBox(State())

    package init(_ limits: Limits? = nil) {
        state.withLock { $0.limits = limits }
    }

    /// The limits from now on (`nil`: none); at start and at each reload.
    package func configure(_ limits: Limits?) {
        state.withLock { state in
            if state.limits != limits { state.windows.removeAll() }
            state.limits = limits
        }
    }

    /// Whether one of the user's skip, wait or retry entries may be written now: it spends her
    /// output's budget (so that her requests, as her output, cannot make journald suppress root's
    /// entries), and what is over it is counted, to be said by the next one logged.
    package func takeEntry(uid: uid_t, now: MonotonicInstant = .now()) -> EntryFate {
        let taken = take(uid: uid, now: now)
        return state.withLock { state in
            if taken { return .log(droppedBefore: state.entriesDropped.removeValue(forKey: uid) ?? 0) }
            state.entriesDropped[uid, default: 0] += 1
            return state.entriesDropped[uid] == 1 ? .dropFirst : .drop
        }
    }

    /// Whether a journal entry of the user with `uid` may be written now; counts it if it may.
    package func take(uid: uid_t, now: MonotonicInstant = .now()) -> Bool {
        state.withLock { state in
            guard let limits = state.limits else { return true }
            var window = state.windows[uid] ?? (now, 0)
            if !limits.interval.isInfinite, now >= window.start + limits.interval.duration { window = (now, 0) }
            guard window.used < limits.burst else {
                state.windows[uid] = window
                return false
            }
            window.used += 1
            state.windows[uid] = window
            // Users whose window has long passed take no memory.
            if state.windows.count > 1_024, !limits.interval.isInfinite {
                state.windows = state.windows.filter { now < $0.value.start + limits.interval.duration }
            }
            return true
        }
    }
}

import JobdCalendar

extension WhyReport {
    /// One line per elapse or run, oldest first (time, outcome, why), then `Next: …`. `time` and
    /// `relative` format wall-clock microseconds (``TimeFormat`` for the terminal, fixed in tests).
    package func text(time: (Int64) -> String, relative: (Int64) -> String) -> String {
        var lines: [String] = []
        if rows.isEmpty {
            lines.append("No elapse or run of \(job) in the journal.")
        }
        for row in rows {
            lines.append("\(time(row.timeUSec))  \(Self.label(row).padding(9))  \(Self.because(row, time: time))")
        }
        if let next {
            let when = next.timeUSec.map { "\(time($0)) (\(relative($0)))" } ?? "none"
            let retry = next.retryUSec.map { "; a retry of the last run first, at \(time($0))" } ?? ""
            lines.append("Next: \(when)" + retry + (next.deciders.isEmpty ? "" : ": " + next.deciders.joined(separator: "; ")))
        }
        return lines.map { TerminalText.escaped($0) + "\n" }.joined()
    }

    /// The outcome in a word, and who asked for a run that no trigger did.
    static func label(_ row: ElapseExplanation) -> String {
        row.outcome == .retrying ? "failed" : row.outcome.rawValue
    }

    /// What became of it and why, in plain words.
    static func because(_ row: ElapseExplanation, time: (Int64) -> String) -> String {
        var parts: [String] = []
        switch row.cause {
        case "timer": break
        case "manual": parts.append("started by hand (jobctl run)")
        case "on-failure": parts.append("started by \(row.triggeredBy ?? "another job")'s OnFailure=")
        case "on-success": parts.append("started by \(row.triggeredBy ?? "another job")'s OnSuccess=")
        default: parts.append("started as \(row.cause)")
        }
        let run = row.runID.map { "run \($0)" } ?? "run"
        switch row.outcome {
        case .ran:
            let status = row.exitStatus.map { " (status \($0))" } ?? ""
            parts.append("\(run): \(row.result ?? "no result")\(status)")
        case .running:
            parts.append("\(run): in flight, or its end was not logged")
        case .retrying:
            parts.append("\(run): \(row.result ?? "failed"); a retry is due (Restart=)")
        case .skipped:
            parts.append(skipPhrase(row.reason ?? "unknown", condition: row.condition))
        case .waiting:
            parts.append("\(run) waits" + (row.reason.map { " for " + waitPhrase($0) } ?? ""))
        case .missed:
            let gap = gapPhrase(row.reason ?? "", from: row.windowFromUSec.map(time) ?? "?", to: row.windowToUSec.map(time) ?? "?")
            parts.append(row.count > 1 ? "\(row.count) elapses: \(gap)" : gap)
        }
        if row.retries > 0 { parts.append("after \(row.retries) retr\(row.retries == 1 ? "y" : "ies")") }
        if row.outcome == .ran, let reason = row.reason {
            parts.append(reason.hasPrefix("retry-cancelled ")
                         ? "its retry was called off: " + skipPhrase(String(reason.dropFirst("retry-cancelled ".count)), condition: nil)
                         : "after waiting for " + waitPhrase(reason))
        }
        if row.caughtUp, let started = row.startedUSec { parts.append("late: caught up at \(time(started))") }
        if let node = row.node { parts.append("on node \(node)") }
        return parts.joined(separator: ", ")
    }

    /// A `run.skip`'s `JOBD_REASON` in words; one jobd does not know yet, as it is.
    static func skipPhrase(_ reason: String, condition: String?) -> String {
        if reason.hasPrefix("claimed-by ") { return "claimed by node \(reason.dropFirst("claimed-by ".count)) (RunOn=one-node)" }
        switch reason {
        case "overlap": return "a run was still in flight (Overlap=skip)"
        case "already-queued": return "a run was in flight and another already waited for it (Overlap=queue)"
        case "disabled": return "the job was disabled (jobctl disable)"
        case "condition": return condition.map { "\($0) did not hold" } ?? "a Condition…= did not hold"
        case "fleet-unavailable": return "the fleet's database was unavailable (RunOn=one-node)"
        case "clock-skew": return "this node's clock was too far from the fleet database's (MaxClockSkewSec=)"
        case "no-fleet": return "RunOn=one-node, but jobd.conf has no [Fleet]"
        case "job-waiting-runs-max": return "too many of its runs already waited for a slot (JobWaitingRunsMax=)"
        case "user-waiting-runs-max": return "too many of its user's runs already waited for a slot (UserWaitingRunsMax=)"
        case "stopping": return "jobd was stopping"
        case "stopped": return "it waited and was stopped (jobctl stop)"
        case "job-removed", "no-such-job": return "the job was removed by a reload"
        case "owner-retired": return "a reload replaced the job as it fell due"
        case "superseded": return "a newer run of the job took its place"
        case "trigger-cycle": return "it would have started itself again (an OnFailure=/OnSuccess= cycle)"
        case "trigger-chain-too-long": return "the OnFailure=/OnSuccess= chain was too long"
        default: return "skipped: \(reason)"
        }
    }

    /// A `run.wait`'s `JOBD_REASON` in words.
    static func waitPhrase(_ reason: String) -> String {
        switch reason {
        case "overlap": "the run in flight (Overlap=queue or replace)"
        case "max-concurrent-runs": "a free slot (MaxConcurrentRuns=)"
        case "user-runs-max": "one of its user's runs to end (UserRunsMax=)"
        default: reason
        }
    }

    static func gapPhrase(_ reason: String, from: String, to: String) -> String {
        switch reason {
        case "jobd-down": "jobd was not running (from its last entry at \(from) to its start at \(to))"
        case "suspended": "the machine was suspended from \(from) to \(to)"
        case "clock-jump": "the wall clock jumped from \(from) to \(to)"
        default: "\(reason) from \(from) to \(to)"
        }
    }
}

extension String {
    /// Padded with spaces to `width` characters, for a column.
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

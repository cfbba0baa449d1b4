package import JobdControl
package import SystemdKit

/// `jobctl why JOB`: the job's last elapses and what became of each, and what will decide the
/// next one. Made from the journal's entries alone (the job's, and jobd's starts, stops and clock
/// changes) and the job's status, by a pure fold: no clock, no journal, no daemon.
package struct WhyReport: Sendable, Equatable {
    package var job: String
    /// The last elapses and runs, oldest first.
    package var rows: [ElapseExplanation]
    package var next: NextElapseExplanation?

    /// A span of time in which no elapse was served: jobd was not running, the machine was
    /// suspended, or the wall clock jumped over it.
    package struct Gap: Sendable, Equatable {
        package var fromUSec: Int64
        package var toUSec: Int64
        /// `jobd-down`, `suspended` or `clock-jump`.
        package var reason: String
    }

    /// - Parameters:
    ///   - entries: jobd's entries of the job and of its own start, stop and clock changes, in
    ///     journal order, as jobd wrote them (the caller drops any another process wrote).
    ///   - status: the job's status now (its next elapse and what decides it); `nil` without one.
    ///   - count: how many of the last elapses and runs to keep.
    ///   - schedule: the elapses of the job's calendar triggers after the first instant and up to
    ///     the second, for the elapses that fell in a gap and so have no entry.
    package init(
        job: String, entries: [JournalEntry], status: JobStatus?, count: Int, nowUSec: Int64,
        schedule: (Int64, Int64) -> [Int64]
    ) {
        self.job = job
        let (traces, gaps) = Self.fold(entries, job: job)
        var rows = Self.rows(of: traces)
        rows += Self.missed(in: gaps, schedule: schedule, rows: &rows)
        rows.sort { $0.timeUSec < $1.timeUSec }
        self.rows = Array(rows.suffix(max(count, 0)))
        next = status.map { NextElapseExplanation(status: $0, nowUSec: nowUSec) }
        lastDue = rows.last { $0.isElapse && $0.timeUSec <= nowUSec }
    }

    /// The last elapse that fell due (not a run by hand or by another job), of all read, not only those shown.
    package var lastDue: ElapseExplanation?

    /// Whether the last elapse that fell due ran (started, whatever its result); `nil` when the
    /// journal holds none.
    package var lastDueRan: Bool? {
        lastDue.map { [.ran, .running, .retrying].contains($0.outcome) }
    }

    /// The runs of `job` by `JOBD_RUN_ID`, in the order they were asked for, and the gaps.
    static func fold(_ entries: [JournalEntry], job: String) -> (traces: [RunTrace], gaps: [Gap]) {
        var traces: [RunTrace] = []
        var index: [String: Int] = [:]
        var gaps: [Gap] = []
        var last: (usec: Int64, instance: String?)?
        for entry in entries {
            let time = Int64(clamping: entry.realtimeUSec)
            switch entry["JOBD_EVENT"] {
            case "daemon.start":
                // From the last entry of the jobd before to this one's start, nothing was served.
                if let last, last.instance != entry["JOBD_INSTANCE"] || last.instance == nil {
                    gaps.append(Gap(fromUSec: last.usec, toUSec: time, reason: "jobd-down"))
                }
            case "clock.change":
                if let suspended = entry["JOBD_SUSPENDED_USEC"].flatMap({ Int64($0) }), suspended > 0 {
                    gaps.append(Gap(fromUSec: time - suspended, toUSec: time, reason: "suspended"))
                }
                if let jump = entry["JOBD_CLOCK_JUMP_USEC"].flatMap({ Int64($0) }), jump > 0 {
                    gaps.append(Gap(fromUSec: time - jump, toUSec: time, reason: "clock-jump"))
                }
            default:
                break
            }
            last = (time, entry["JOBD_INSTANCE"])
            guard entry["JOB"] == job, let id = entry["JOBD_RUN_ID"] else { continue }
            if index[id] == nil {
                index[id] = traces.count
                traces.append(RunTrace(id: id, askedUSec: time))
            }
            traces[index[id]!].consume(entry)
        }
        return (traces, gaps)
    }

    /// One row per elapse (its retries folded in) and per run asked for otherwise.
    static func rows(of traces: [RunTrace]) -> [ElapseExplanation] {
        var rows: [ElapseExplanation] = []
        var byElapse: [Int64: Int] = [:]
        for trace in traces {
            let elapse = trace.elapseUSec
            if trace.cause == "retry" {
                // A retry serves its run's elapse; a retry of a run by hand, the row before it.
                guard let row = elapse.flatMap({ byElapse[$0] }) ?? rows.indices.last else { continue }
                rows[row].retries += 1
                rows[row].apply(trace)
                continue
            }
            if trace.cause == "timer", let row = byElapse[elapse ?? trace.askedUSec] {
                rows[row].apply(trace)
                continue
            }
            var row = ElapseExplanation(timeUSec: trace.cause == "timer" ? elapse ?? trace.askedUSec : trace.askedUSec,
                                        cause: trace.cause, outcome: .waiting)
            row.apply(trace)
            if trace.cause == "timer" { byElapse[row.timeUSec] = rows.count }
            rows.append(row)
        }
        return rows
    }

    /// The elapses that fell in a gap and were not served, one row per gap; a row that served an
    /// elapse in a gap (a catch-up) is marked so.
    static func missed(in gaps: [Gap], schedule: (Int64, Int64) -> [Int64], rows: inout [ElapseExplanation]) -> [ElapseExplanation] {
        var missed: [ElapseExplanation] = []
        for gap in gaps where gap.toUSec > gap.fromUSec {
            var unserved: [Int64] = []
            for elapse in schedule(gap.fromUSec, gap.toUSec) where elapse > gap.fromUSec && elapse <= gap.toUSec {
                if let row = rows.firstIndex(where: { $0.isElapse && $0.timeUSec == elapse }) {
                    rows[row].caughtUp = rows[row].caughtUp || rows[row].outcome != .skipped
                } else {
                    unserved.append(elapse)
                }
            }
            guard let first = unserved.first else { continue }
            var row = ElapseExplanation(timeUSec: first, cause: "timer", outcome: .missed, reason: gap.reason)
            row.windowFromUSec = gap.fromUSec
            row.windowToUSec = gap.toUSec
            row.count = unserved.count
            missed.append(row)
        }
        return missed
    }
}

extension ElapseExplanation {
    /// Takes what became of the elapse's latest run.
    mutating func apply(_ trace: RunTrace) {
        runID = trace.id
        node = trace.node ?? node
        triggeredBy = trace.triggeredBy ?? triggeredBy
        if let reason = trace.skipReason {
            if trace.cause == "retry", result != nil {
                // A failed run's retry that was called off: the elapse ran, and failed.
                outcome = .ran
                self.reason = "retry-cancelled " + reason
            } else {
                outcome = .skipped
                self.reason = reason
                condition = trace.condition
            }
        } else if trace.started {
            outcome = trace.result == nil ? .running : .ran
            result = trace.result
            exitStatus = trace.exitStatus
            startedUSec = trace.startedUSec
            reason = trace.waitReason
        } else if trace.retryAttempt != nil {
            outcome = .retrying
        } else {
            outcome = .waiting
            reason = trace.waitReason
        }
    }
}

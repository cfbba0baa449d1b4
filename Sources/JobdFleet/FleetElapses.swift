package import JobdCalendar

/// `jobctl audit --fleet --elapses`: for each elapse of each fleet job in a window, what came of it,
/// read from the claims table and the elapses the jobs' calendars had: ran once (on which node,
/// with what result, after which retries), ran twice, skipped (why), unclaimed, or in flight. Pure:
/// the caller reads the rows.
package struct FleetElapses: Sendable {
    package enum Outcome: Sendable, Hashable {
        /// One attempt ran at a time: the last one's node and result (`nil`: still running), and
        /// the attempts before it, each a retry of a failed or lost run.
        case ranOnce(node: String, result: String?, retried: [ClaimRecord])
        /// More than one run of the elapse where one was due (``FleetAudit/Problem``): the runs.
        case ranTwice([ClaimRecord])
        /// No run: the nodes could not claim it (the reason recorded: `fleet-unavailable`).
        case skipped(reason: String)
        /// No claim at all.
        case unclaimed
    }

    package struct Elapse: Sendable, Hashable {
        package var job: String
        package var elapse: RealtimeInstant
        package var outcome: Outcome
    }

    package var elapses: [Elapse] = []

    /// - Parameters:
    ///   - claims: the claims table's rows.
    ///   - expected: each fleet job's elapses in the window (``FleetAudit/expectedElapses(of:from:to:zone:limit:)``).
    ///   - window: the elapses listed; claims of elapses outside it are left out.
    package init(claims: [ClaimRecord], expected: [String: [RealtimeInstant]], window: ClosedRange<RealtimeInstant>) {
        let byElapse = FleetAudit.byElapse(claims.filter { window.contains($0.key.elapse) })
        for (job, instants) in expected {
            for instant in instants where window.contains(instant) && byElapse[job]?[instant] == nil {
                elapses.append(Elapse(job: job, elapse: instant, outcome: .unclaimed))
            }
        }
        for (job, runs) in byElapse {
            for (instant, records) in runs {
                elapses.append(Elapse(job: job, elapse: instant, outcome: Self.outcome(of: records.sorted { $0.key.attempt < $1.key.attempt })))
            }
        }
        elapses.sort { ($0.elapse, $0.job) < ($1.elapse, $1.job) }
    }

    /// What the attempts of one elapse, in order, came to.
    static func outcome(of attempts: [ClaimRecord]) -> Outcome {
        let ran = attempts.filter { !FleetElapses.notRun.contains($0.result ?? "") }
        guard let last = ran.last else { return .skipped(reason: attempts.last?.result ?? "unknown") }
        let earlier = ran.dropLast()
        // Every attempt before the last a retry of one that failed, and no two at the same time.
        let retries = earlier.allSatisfy { FleetAudit.retriedResults.contains($0.result ?? "") }
        let concurrent = !FleetAudit.overlaps(ran, now: RealtimeInstant(microseconds: .max)).isEmpty
        guard retries, !concurrent || ran.count == 1 else { return .ranTwice(ran) }
        return .ranOnce(node: last.node, result: last.result, retried: Array(earlier))
    }

    /// Results of a claim that ran nothing: the nodes could not reach the database.
    static let notRun: Set<String> = [FleetDatabase.skippedResult]

    /// Whether any elapse ran twice: `jobctl audit --fleet --elapses` then exits 1.
    package var ranTwice: Bool {
        elapses.contains { if case .ranTwice = $0.outcome { true } else { false } }
    }

    /// One line per elapse: its time in `zone`, the job, and what came of it.
    package func text(in zone: TimeZoneRules) -> String {
        let lines = elapses.map { elapse in
            TimestampFormat.timestamp(elapse.elapse, in: zone) + "  " + elapse.job + "  " + Self.describe(elapse.outcome)
        }
        return (lines.isEmpty ? "no elapse of a fleet job in the window" : lines.joined(separator: "\n")) + "\n"
    }

    static func describe(_ outcome: Outcome) -> String {
        switch outcome {
        case .ranOnce(let node, let result, let retried):
            "ran once on \(node) (\(result ?? "running"))"
                + (retried.isEmpty ? "" : ", after " + retried.map { "attempt \($0.key.attempt) on \($0.node): \($0.result ?? "?")" }.joined(separator: ", "))
        case .ranTwice(let runs):
            "RAN \(runs.count) TIMES: " + runs.map { "attempt \($0.key.attempt) on \($0.node) (run \($0.runID)): \($0.result ?? "running")" }.joined(separator: "; ")
        case .skipped(let reason):
            "skipped (\(reason))"
        case .unclaimed:
            "not claimed by any node"
        }
    }
}

package import JobdCalendar
package import JobdConfig

/// The lifecycle audit carried to a fleet: over the claims table and the nodes' heartbeats, it
/// proves that no elapse ran twice, that every claimed run ended or was recorded lost, and that no
/// elapse of a fleet job went unclaimed while a node was alive to claim it. Pure: the caller reads
/// the rows and computes the elapses each job's calendar had.
package struct FleetAudit: Sendable {
    package enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// A run of an elapse that already had a run which did not fail (or a second run while the
        /// first went on): the elapse ran twice.
        case claimedTwice(ClaimRecord, after: ClaimRecord?)
        /// Two attempts of one elapse that ran at the same time, whatever their results: a double
        /// run (a run recorded lost counts until its real end, or its lease's end).
        case ranAtOnce(ClaimRecord, ClaimRecord)
        /// A claimed run with neither an end nor a lost record, whose lease lapsed long ago.
        case unfinished(ClaimRecord)
        /// An elapse nobody claimed although a node was alive from a lease before it to a lease after it.
        case unclaimed(job: String, elapse: RealtimeInstant, aliveNodes: [String])

        package var description: String {
            switch self {
            case .claimedTwice(let record, let first):
                "elapse claimed twice: \(record.key) ran on \(record.node) (run \(record.runID))"
                    + (first.map { " after attempt \($0.key.attempt) on \($0.node) ended \($0.result ?? "open")" } ?? " with no attempt before it")
            case .ranAtOnce(let first, let second):
                "double run: \(first.key) ran on \(first.node) (run \(first.runID)) while attempt \(second.key.attempt) ran on "
                    + "\(second.node) (run \(second.runID))"
            case .unfinished(let record):
                "claim without an end or a lost record: \(record.key) on \(record.node) (run \(record.runID)), lease lapsed"
            case .unclaimed(let job, let elapse, let nodes):
                "unclaimed elapse: \(job) at \(elapse.microseconds) while \(nodes.joined(separator: ", ")) were alive"
            }
        }
    }

    /// The results after which a later attempt of the same elapse is a retry, not a second run.
    static let retriedResults: Set<String> = ["exit-code", "signal", "core-dump", "timeout", "oom-kill", "start-failed", "lost"]

    package var problems: [Problem] = []
    /// Claims whose lease is still running: in flight, not a problem.
    package var inFlight: [ClaimRecord] = []
    package var claims = 0
    package var elapses = 0
    /// Elapses the nodes skipped because none could reach the database (recorded when they could
    /// again, ``FleetDatabase/skippedResult``): not run, and not a problem.
    package var skipped = 0

    /// - Parameters:
    ///   - expected: each fleet job's elapses in the window audited (from its calendar).
    ///   - lease: the lease, in microseconds: a node counts as alive for an elapse from a lease after
    ///     its start to a lease before its last heartbeat, and an open claim is unfinished a lease
    ///     after its own lease lapsed (time for some node to record it lost).
    ///   - now: the database's clock.
    package init(claims records: [ClaimRecord], sessions: [NodeSession], expected: [String: [RealtimeInstant]],
                lease: Int64, now: RealtimeInstant) {
        claims = records.count
        let byElapse = Self.byElapse(records)
        for (_, elapses) in byElapse.sorted(by: { $0.key < $1.key }) {
            for (_, runs) in elapses.sorted(by: { $0.key < $1.key }) {
                self.elapses += 1
                let ordered = runs.sorted { $0.key.attempt < $1.key.attempt }
                problems += Self.overlaps(ordered, now: now)
                for (index, record) in ordered.enumerated() {
                    if record.result == FleetDatabase.skippedResult { skipped += 1 }
                    if record.isOpen {
                        if record.leaseUntil.microseconds + lease < now.microseconds {
                            problems.append(.unfinished(record))
                        } else {
                            inFlight.append(record)
                        }
                    }
                    guard record.key.attempt > 0 || index > 0 else { continue }
                    let previous = index > 0 ? ordered[index - 1] : nil
                    let retry = previous.map { $0.key.attempt + 1 == record.key.attempt && Self.retriedResults.contains($0.result ?? "") } ?? false
                    if !retry { problems.append(.claimedTwice(record, after: previous)) }
                }
            }
        }
        for (job, instants) in expected.sorted(by: { $0.key < $1.key }) {
            for elapse in instants where byElapse[job]?[elapse] == nil {
                let alive = sessions.filter {
                    $0.startedAt.microseconds + lease <= elapse.microseconds && elapse.microseconds + lease <= $0.heartbeatAt.microseconds
                }
                if !alive.isEmpty { problems.append(.unclaimed(job: job, elapse: elapse, aliveNodes: Array(Set(alive.map(\.node))).sorted())) }
            }
        }
    }

    /// `records` by job, then by elapse: the attempts of each elapse.
    static func byElapse(_ records: some Sequence<ClaimRecord>) -> [String: [RealtimeInstant: [ClaimRecord]]] {
        var byElapse: [String: [RealtimeInstant: [ClaimRecord]]] = [:]
        for record in records { byElapse[record.key.job, default: [:]][record.key.elapse, default: []].append(record) }
        return byElapse
    }

    /// Every pair of `runs` (attempts of one elapse) whose times overlap: each ran from its claim
    /// to ``ClaimRecord/ranUntil`` (`now` for one that may still run). A skipped elapse never ran.
    static func overlaps(_ runs: [ClaimRecord], now: RealtimeInstant) -> [Problem] {
        let ran = runs.filter { $0.result != FleetDatabase.skippedResult }
        var found: [Problem] = []
        for (index, first) in ran.enumerated() {
            for second in ran[(index + 1)...] {
                let firstEnd = first.ranUntil ?? now, secondEnd = second.ranUntil ?? now
                if first.claimedAt < secondEnd && second.claimedAt < firstEnd { found.append(.ranAtOnce(first, second)) }
            }
        }
        return found
    }

    /// `jobctl audit`'s exit status: 1 when a problem was proven, else 0.
    package var exitCode: Int32 { problems.isEmpty ? 0 : 1 }

    /// The report, as `jobctl audit --fleet` prints it.
    package var text: String {
        var lines = ["fleet audit: \(claims) claim(s) of \(elapses) elapse(s), \(inFlight.count) in flight, "
                     + (skipped > 0 ? "\(skipped) skipped while the database was unavailable, " : "")
                     + (problems.isEmpty ? "clean" : "\(problems.count) problem(s)")]
        lines += problems.map { "  " + $0.description }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Each `RunOn=one-node` job's calendar elapses after `start` up to `end` (at most `limit` a job):
    /// what the fleet should have claimed.
    package static func expectedElapses(
        of jobs: [JobDefinition], from start: RealtimeInstant, to end: RealtimeInstant, zone: TimeZoneRules, limit: Int = 100_000
    ) -> [String: [RealtimeInstant]] {
        var expected: [String: [RealtimeInstant]] = [:]
        for job in jobs where job.runOn == .oneNode {
            var elapses: [RealtimeInstant] = []
            var after = start
            while elapses.count < limit {
                let next = job.triggers.compactMap { trigger -> RealtimeInstant? in
                    switch trigger {
                    case .calendar(let spec): spec.nextElapse(after: after, in: zone)
                    case .cron(let spec): spec.nextElapse(after: after, in: zone)
                    default: nil
                    }
                }.min()
                guard let next, next <= end else { break }
                elapses.append(next)
                after = next
            }
            expected[job.name] = elapses
        }
        return expected
    }
}

import Foundation
import JobdCalendar
import JobdConfig
import JobdFleet
import JobdTestKit

/// Part 6: fleet claims. `jobs` fleet jobs fall due at the same second on three nodes, each node
/// claiming every one of them at that second on its own connection to one real PostgreSQL (a
/// temporary cluster on loopback, as the tests start it), all at once as jobd's due runs claim
/// (each its own task; the claims that wait together go as one statement). It reports when each
/// node had its verdicts after the elapse, whether every elapse was claimed exactly once, and the
/// database round trips per elapse (claims plus the end of the winner's run). The nodes are jobd's
/// claim path (`FleetDatabase`) in this process, not three whole jobd processes.
struct FleetBenchmark {
    var jobs: Int

    func run(_ report: Report) throws {
        report.section("Part 6: fleet claims (\(jobs) jobs due at the same second, 3 nodes, one PostgreSQL on loopback)", part: "6 fleet")
        let postgres = try TemporaryPostgres()
        try postgres.createFleetDatabase("fleet", user: "jobd", password: "bench")
        var settings = FleetSettings(database: postgres.connectionString(), node: "")
        settings.passwordFile = try postgres.passwordFile("bench")
        let jobs = self.jobs
        let fleet = settings
        let result = Blocking.run {
            try await Self.measure(settings: fleet, jobs: jobs)
        }
        let measured = try result.get()
        report.figure("verdict after the elapse, per claim", Percentiles(measured.latencies).summary)
        report.figure("last verdict after the elapse", Format.duration(nanoseconds: Double(measured.latencies.max() ?? 0)) + " (target ≤ 1 s)")
        report.figure("elapses claimed", "\(measured.claimedOnce) of \(jobs) exactly once, \(measured.claimedTwice) twice, "
                      + "\(jobs - measured.claimedOnce - measured.claimedTwice) never")
        report.figure("round trips per elapse", String(format: "%.3f", Double(measured.roundTrips) / Double(jobs))
                      + " (claims of 3 nodes and the winner's end); the claims alone \(measured.claimRoundTrips) round trips for \(3 * jobs) claims")
    }

    struct Measured: Sendable {
        var latencies: [Int64]
        var roundTrips: Int
        var claimRoundTrips: Int
        var claimedOnce: Int
        var claimedTwice: Int
    }

    static func measure(settings: FleetSettings, jobs: Int) async throws -> Measured {
        let nodes = try (0..<3).map { index in
            var node = settings
            node.node = "node-\(index)"
            return try FleetDatabase(settings: node, instance: "bench-\(index)", realtime: { RealtimeInstant.now() })
        }
        for node in nodes { try await node.connect() }
        let before = await nodes.asyncMap { await $0.roundTrips }.reduce(0, +)
        let elapse = RealtimeInstant(seconds: RealtimeInstant.now().seconds + 2)
        let keys = (0..<jobs).map { ClaimKey(job: "job-\($0)", elapse: elapse) }
        let outcomes = await withTaskGroup(of: ([Int64], [String], Int).self) { group in
            for node in nodes {
                group.addTask {
                    // Due at the elapse, as each node's timers would fire.
                    let tripsBefore = await node.roundTrips
                    let wait = elapse.microseconds - RealtimeInstant.now().microseconds
                    if wait > 0 { try? await Task.sleep(for: .microseconds(wait)) }
                    let verdicts = await withTaskGroup(of: (String, Int64, ClaimVerdict).self) { claims in
                        for (index, key) in keys.enumerated() {
                            claims.addTask {
                                let runID = "\(node.settings.node)-\(index)"
                                let verdict = await node.claim(key, runID: runID)
                                return (key.job, (RealtimeInstant.now().microseconds - elapse.microseconds) * 1_000, verdict)
                            }
                        }
                        var all: [(String, Int64, ClaimVerdict)] = []
                        for await verdict in claims { all.append(verdict) }
                        return all
                    }
                    let claimTrips = await node.roundTrips - tripsBefore
                    let won = verdicts.filter { $0.2.isWon }.map(\.0)
                    for job in won {
                        let index = Int(job.dropFirst("job-".count))!
                        await node.finish(runID: "\(node.settings.node)-\(index)", result: "success")
                    }
                    return (verdicts.map(\.1), won, claimTrips)
                }
            }
            var all: [([Int64], [String], Int)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let after = await nodes.asyncMap { await $0.roundTrips }.reduce(0, +)
        for node in nodes { await node.close() }
        var winners: [String: Int] = [:]
        for job in outcomes.flatMap(\.1) { winners[job, default: 0] += 1 }
        return Measured(latencies: outcomes.flatMap(\.0), roundTrips: after - before, claimRoundTrips: outcomes.map(\.2).reduce(0, +),
                        claimedOnce: winners.values.count { $0 == 1 }, claimedTwice: winners.values.count { $0 > 1 })
    }
}

extension Array where Element: Sendable {
    fileprivate func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var results: [T] = []
        for element in self { results.append(await transform(element)) }
        return results
    }
}

/// Runs async work to completion from the benchmarks' synchronous command.
enum Blocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let semaphore = DispatchSemaphore(value: 0)
        let box = Guarded<Result<T, any Error>?>(nil)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            box.withLock { $0 = result }
            semaphore.signal()
        }
        semaphore.wait()
        return box.withLock { $0! }
    }
}

import Foundation
import JobdCalendar
import JobdConfig
import JobdFleet
import JobdTestKit

/// Part 6: fleet claims. `jobs` fleet jobs fall due at the same second on three nodes, each node
/// claiming every one of them on its own connection to one real PostgreSQL (a temporary cluster on
/// loopback, as the tests start it): the claim latency each node sees, and the database round trips
/// per elapse (claims plus the end of the winner's run). The nodes are jobd's claim path
/// (`FleetDatabase`) in this process, not three whole jobd processes.
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
        let (latencies, roundTrips, won) = try result.get()
        let percentiles = Percentiles(latencies)
        report.figure("claim latency", percentiles.summary)
        report.figure("round trips per elapse", String(format: "%.2f", Double(roundTrips) / Double(jobs))
                      + " (3 claims and 1 end; \(won) of \(jobs) elapses claimed once)")
    }

    static func measure(settings: FleetSettings, jobs: Int) async throws -> ([Int64], Int, Int) {
        let clock = { @Sendable in RealtimeInstant(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000)) }
        let nodes = try (0..<3).map { index in
            var node = settings
            node.node = "node-\(index)"
            return try FleetDatabase(settings: node, instance: "bench-\(index)", realtime: clock)
        }
        for node in nodes { try await node.connect() }
        let before = await nodes.asyncMap { await $0.roundTrips }.reduce(0, +)
        let elapse = RealtimeInstant(seconds: Int64(Date().timeIntervalSince1970) + 1)
        let keys = (0..<jobs).map { ClaimKey(job: "job-\($0)", elapse: elapse) }
        let outcomes = await withTaskGroup(of: ([Int64], [String]).self) { group in
            for node in nodes {
                group.addTask {
                    var latencies: [Int64] = []
                    var won: [String] = []
                    for (index, key) in keys.enumerated() {
                        let start = ContinuousClock.now
                        let verdict = await node.claim(key, runID: "\(node.settings.node)-\(index)")
                        let duration = ContinuousClock.now - start
                        latencies.append(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
                        if verdict == .won { won.append("\(node.settings.node)-\(index)") }
                    }
                    for runID in won { await node.finish(runID: runID, result: "success") }
                    return (latencies, won)
                }
            }
            var all: [([Int64], [String])] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let after = await nodes.asyncMap { await $0.roundTrips }.reduce(0, +)
        for node in nodes { await node.close() }
        return (outcomes.flatMap(\.0), after - before, outcomes.map(\.1.count).reduce(0, +))
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

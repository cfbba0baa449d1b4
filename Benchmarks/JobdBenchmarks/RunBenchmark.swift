import Foundation
import JobdTestKit
import JobdTimers

/// Part 3: how fast jobd starts runs. `jobs` jobs run `/bin/true` with `OnUnitInactiveSec=1ms`:
/// each falls due 1 ms after its last run finished, so jobd always has runs to start, `jobs` at a
/// time. Runs are counted from the `run.exit` lines on jobd's stderr; start lateness is the time
/// from a job's `run.exit` line to its next `run.start` line, less the 1 ms, both stamped as they
/// arrive through the same pipe. The limit is a `posix_spawn` + `waitpid` loop in the same run.
struct RunBenchmark {
    struct Tally {
        var windowStart: MonotonicInstant?
        var windowEnd: MonotonicInstant?
        var lastExit: [Substring: MonotonicInstant] = [:]
        var exits = 0
        var lateness: [Int64] = []
    }

    var seconds: Int
    var jobs = 8
    static let interval: Int64 = 1_000_000

    func run(_ report: Report) throws {
        report.section("Part 3: runs of /bin/true, \(jobs) jobs with OnUnitInactiveSec=1ms, \(seconds) s", part: "3 runs")
        let single = SpawnLoop.spawnsPerSecond(seconds: Double(seconds))
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let parallel = SpawnLoop.spawnsPerSecond(seconds: Double(seconds), threads: cores)
        report.figure("posix_spawn + waitpid loop (the limit)", Format.rate(single))
        report.figure("the same, \(cores) loops at once", Format.rate(parallel))

        let direct = try measure(extraKey: "")
        report.figure("jobd runs per second", Format.rate(direct.rate) + " (\(direct.exits) runs, jobd exit \(direct.status))")
        report.figure("jobd CPU time per run", Format.duration(nanoseconds: direct.cpuPerRun))
        report.figure("start lateness", direct.lateness.summary)
        report.figure("ratio: jobd runs ÷ loop spawns", String(format: "%.2f (÷ \(cores) loops: %.2f)", direct.rate / single, direct.rate / parallel))
        report.target("runs per second ≥ 1/2 of a posix_spawn loop",
                      measured: "\(Format.rate(direct.rate)) vs \(Format.rate(single)) (\(String(format: "%.2f", direct.rate / single)))",
                      passed: direct.rate >= single / 2)
        // Under jobd's unit every run goes through jobd-cgexec (its cgroup); here a key that needs
        // it (UMask=) sends each run through it without a cgroup: the trampoline's exec and handshake.
        let trampoline = try measure(extraKey: "UMask=0022\n")
        report.figure("through jobd-cgexec (UMask=): runs per second", Format.rate(trampoline.rate) + " (\(trampoline.exits) runs, jobd exit \(trampoline.status))")
        report.figure("through jobd-cgexec: jobd CPU time per run", Format.duration(nanoseconds: trampoline.cpuPerRun))
        report.figure("through jobd-cgexec: start lateness", trampoline.lateness.summary)
        report.figure("through jobd-cgexec: ratio to the direct spawn", String(format: "%.2f", trampoline.rate / max(direct.rate, 1)))
    }

    /// One window of the eight spinning jobs, each with `extraKey` in its file.
    private func measure(extraKey: String) throws -> (rate: Double, exits: Int, status: Int32, cpuPerRun: Double, lateness: Percentiles) {
        let work = NSTemporaryDirectory() + "jobd-bench-runs-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work + "/config/jobs.d", withIntermediateDirectories: true)
        for index in 0..<jobs {
            // AccuracySec=1us: no rounding up of the elapse, so lateness is jobd's own.
            try "[Job]\nOnUnitInactiveSec=1ms\nAccuracySec=1us\nExecStart=/bin/true\n\(extraKey)"
                .write(toFile: work + "/config/jobs.d/spin-\(index).job", atomically: false, encoding: .utf8)
        }
        let tally = Guarded(Tally())
        let lines = StampedLines { line, now in Self.count(line, at: now, into: tally) }
        let daemon = try LaunchedDaemon(configDirectory: work + "/config", workDirectory: work, standardError: lines.pipe)
        try daemon.waitForReady()
        // A deliberate warm-up, then the measurement window.
        Thread.sleep(forTimeInterval: 1)
        let cpuBefore = daemon.probe.cpuNanoseconds
        tally.withLock { $0.windowStart = .now() }
        Thread.sleep(forTimeInterval: Double(seconds))
        tally.withLock { $0.windowEnd = .now() }
        let cpu = daemon.probe.cpuNanoseconds - cpuBefore
        let (status, _) = daemon.stop()
        lines.waitForEnd()

        let result = tally.withLock { $0 }
        return (Double(result.exits) / Double(seconds), result.exits, status, Double(cpu) / Double(max(result.exits, 1)),
                Percentiles(result.lateness))
    }

    /// Counts one line of jobd's log: a `run.exit` in the window, or a `run.start` after an exit.
    private static func count(_ line: Substring, at now: MonotonicInstant, into tally: Guarded<Tally>) {
        let event: Substring
        if line.contains(": run.exit ") { event = "run.exit" } else if line.contains(": run.start ") { event = "run.start" } else { return }
        guard let marker = line.range(of: ": \(event) ") else { return }
        let job = line[..<marker.lowerBound].split(separator: " ").last ?? ""
        tally.withLock { tally in
            let inWindow = tally.windowStart.map { now >= $0 } == true && tally.windowEnd.map { now <= $0 } != false
            if event == "run.exit" {
                tally.lastExit[job] = now
                if inWindow { tally.exits += 1 }
            } else if inWindow, let exit = tally.lastExit[job] {
                tally.lateness.append(now.duration(since: exit).nanosecondsSaturated - interval)
            }
        }
    }
}

import Foundation
import JobdTestKit
import JobdTimers
import Testing

/// Part 3: how fast jobd starts runs. `jobs` jobs run `/bin/true` with `OnUnitInactiveSec=1ms`:
/// each falls due 1 ms after its last run finished, so jobd always has runs to start, `jobs` at a
/// time. Runs are counted from the `run.exit` lines on jobd's stderr; start lateness is the time
/// from a job's `run.exit` line to its next `run.start` line, less the 1 ms, both stamped as they
/// arrive through the same pipe. The limit is a `posix_spawn` + `waitpid` loop in the same run;
/// for the runs in a cgroup, also that loop with the kernel's work for a cgroup a run (``SpawnLoop/jobdSpawnsPerSecond(seconds:in:)``).
/// Five windows beside it: no key; `UMask=` (through jobd-cgexec); and the two again with jobd in a
/// delegated cgroup, as under its unit (each run in a cgroup of its own: no key starts straight in
/// it, `UMask=` through jobd-cgexec, as every run under the unit did before issue 39's clone3); and,
/// as root, `User=nobody` in a cgroup (switched in the spawned child, without jobd-cgexec).
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
        // A key that needs jobd-cgexec (UMask=) sends each run through it: the trampoline's exec and handshake.
        let trampoline = try measure(extraKey: "UMask=0022\n")
        self.report(trampoline, "through jobd-cgexec (UMask=)", loop: single, direct: direct.rate, report)
        // Under jobd's unit every run has a cgroup: in a delegated one, as Delegate=yes gives, a run
        // with no key starts straight in its cgroup (clone3, CLONE_INTO_CGROUP); with UMask= through jobd-cgexec.
        do {
            // The loop again through jobd's spawn, then with the kernel's work for a cgroup a run, in a delegated cgroup of its own.
            let ofTheLoop = { (rate: Double?) in rate.map { Format.rate($0) + String(format: " (%.2f of the loop)", $0 / single) } ?? "failed" }
            report.figure("the loop through jobd_spawn, no cgroup", ofTheLoop(SpawnLoop.jobdSpawnsPerSecond(seconds: Double(seconds), in: nil)))
            let cgroupLoop = try SpawnLoop.jobdSpawnsPerSecond(seconds: Double(seconds), in: DelegatedTestCgroup())
            report.figure("the loop with a cgroup a run (jobd_spawn)", ofTheLoop(cgroupLoop))
            let cgroup = try DelegatedTestCgroup()
            let placed = try measure(extraKey: "", cgroup: cgroup)
            self.report(placed, "in a cgroup, no key", loop: single, direct: direct.rate, report)
            if let cgroupLoop {
                report.figure("in a cgroup, no key: ratio to the loop with a cgroup a run", String(format: "%.2f", placed.rate / cgroupLoop))
            }
            report.target("runs in a cgroup ≥ 0.8 of a posix_spawn loop",
                          measured: "\(Format.rate(placed.rate)) vs \(Format.rate(single)) (\(String(format: "%.2f", placed.rate / single)))",
                          passed: placed.rate >= single * 0.8)
            let both = try measure(extraKey: "UMask=0022\n", cgroup: DelegatedTestCgroup())
            self.report(both, "in a cgroup through jobd-cgexec (UMask=)", loop: single, direct: direct.rate, report)
            // User=: a cron line's user, a user's crontab; as root only (the switch needs it).
            if getuid() == 0 {
                let user = try measure(extraKey: "User=nobody\n", cgroup: DelegatedTestCgroup())
                self.report(user, "in a cgroup as User=nobody", loop: single, direct: direct.rate, report)
            }
        } catch {
            report.figure("in a cgroup", "not measured: \(error)")
        }
    }

    private func report(_ measured: Measured, _ name: String, loop: Double, direct: Double, _ report: Report) {
        report.figure("\(name): runs per second", Format.rate(measured.rate) + " (\(measured.exits) runs, jobd exit \(measured.status))")
        report.figure("\(name): jobd CPU time per run", Format.duration(nanoseconds: measured.cpuPerRun))
        report.figure("\(name): start lateness", measured.lateness.summary)
        report.figure("\(name): ratio to the loop, to the direct spawn",
                      String(format: "%.2f, %.2f", measured.rate / loop, measured.rate / max(direct, 1)))
    }

    typealias Measured = (rate: Double, exits: Int, status: Int32, cpuPerRun: Double, lateness: Percentiles)

    /// One window of the eight spinning jobs, each with `extraKey` in its file.
    private func measure(extraKey: String, cgroup: DelegatedTestCgroup? = nil) throws -> Measured {
        let work = NSTemporaryDirectory() + "jobd-bench-runs-\(UUID().uuidString)"
        // As under the unit: the runtime directory (each run's record in runs/) on tmpfs, /run/jobd
        // there; the state directory on the disk, as /var/lib/jobd. On ext4 a record's file costs
        // a fifth of the rate in a cgroup.
        let runtime = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/jobd-bench-runs-\(UUID().uuidString)" : work + "/run"
        defer { try? FileManager.default.removeItem(atPath: work); try? FileManager.default.removeItem(atPath: runtime) }
        try FileManager.default.createDirectory(atPath: work + "/config/jobs.d", withIntermediateDirectories: true)
        for index in 0..<jobs {
            // AccuracySec=1us: no rounding up of the elapse, so lateness is jobd's own.
            try "[Job]\nOnUnitInactiveSec=1ms\nAccuracySec=1us\nExecStart=/bin/true\n\(extraKey)"
                .write(toFile: work + "/config/jobs.d/spin-\(index).job", atomically: false, encoding: .utf8)
        }
        let tally = Guarded(Tally())
        let lines = StampedLines { line, now in Self.count(line, at: now, into: tally) }
        let daemon = try LaunchedDaemon(configDirectory: work + "/config", workDirectory: work, runtimeDirectory: runtime, cgroup: cgroup,
                                        standardError: lines.pipe)
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

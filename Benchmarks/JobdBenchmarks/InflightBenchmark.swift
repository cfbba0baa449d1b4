import Foundation
import JobdTestKit
import JobdTimers

/// Part 7 (issue 39, item 4): what a run in flight costs jobd in memory, and whether jobd gives it
/// back. `runs` jobs run `/bin/sleep` once, all due at the same instant (`OnStartupSec=`); jobd's
/// `VmRSS` is read once it is ready (before), once every run has started (in flight) and 20 s
/// after the last one ended (after). Runs are counted from the `run.start`/`run.exit` lines on
/// jobd's stderr.
struct InflightBenchmark {
    struct Tally {
        var started = 0
        var failed = 0
        var exited = 0
    }

    var counts: [Int]
    var sleepSeconds: Int
    var settleSeconds = 20

    func run(_ report: Report) throws {
        for runs in counts {
            report.section("Part 7: \(runs) runs of /bin/sleep \(sleepSeconds) in flight at once", part: "7 inflight")
            let result = try measure(runs: runs)
            let perRun = Double(result.inFlight - result.before) / Double(runs)
            report.figure("jobd RSS before (ready, \(runs) jobs loaded)", Format.bytes(Double(result.before)))
            report.figure("jobd RSS with every run in flight", Format.bytes(Double(result.inFlight)) + " (VmHWM \(Format.bytes(Double(result.peak))))")
            report.figure("RSS per run in flight", Format.bytes(perRun))
            report.figure("runs started / failed to start / ended", "\(result.tally.started) / \(result.tally.failed) / \(result.tally.exited) (jobd exit \(result.status))")
            report.figure("jobd RSS \(settleSeconds) s after the last run ended", Format.bytes(Double(result.after))
                          + String(format: " (%+.1f%% of before)", 100 * Double(result.after - result.before) / Double(result.before)))
            // What stays: the heap (anonymous), or code first run by the runs (file pages, which the kernel may drop).
            report.figure("RssAnon / RssFile before → after",
                          "\(Format.bytes(Double(result.kinds.before.anonymous))) / \(Format.bytes(Double(result.kinds.before.file))) → "
                          + "\(Format.bytes(Double(result.kinds.after.anonymous))) / \(Format.bytes(Double(result.kinds.after.file)))")
            report.target("\(runs) runs in flight: ≤ 16 KiB each, none failed",
                          measured: Format.bytes(perRun) + ", \(result.tally.failed) failed",
                          passed: perRun <= 16 * 1_024 && result.tally.failed == 0 && result.tally.started == runs)
            report.target("\(runs) runs: RSS \(settleSeconds) s after within 10% of before",
                          measured: "\(Format.bytes(Double(result.after))) vs \(Format.bytes(Double(result.before)))",
                          passed: Double(result.after) <= Double(result.before) * 1.1)
        }
    }

    /// One jobd with `runs` sleepers, its RSS before, in flight and after.
    private func measure(runs: Int) throws -> (before: Int, inFlight: Int, peak: Int, after: Int, tally: Tally, status: Int32,
                                               kinds: (before: (anonymous: Int, file: Int), after: (anonymous: Int, file: Int))) {
        Self.raiseOpenFiles(to: runs * 4 + 4_096)
        let work = NSTemporaryDirectory() + "jobd-bench-inflight-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work + "/config/jobs.d", withIntermediateDirectories: true)
        // Due after a pause that leaves time to read the RSS of a ready jobd, and long enough for
        // jobd to load the files.
        let startup = 5 + runs / 2_000
        for index in 0..<runs {
            try "[Job]\nOnStartupSec=\(startup)s\nAccuracySec=1us\nExecStart=/bin/sleep \(sleepSeconds)\n"
                .write(toFile: work + "/config/jobs.d/sleep-\(index).job", atomically: false, encoding: .utf8)
        }
        let tally = Guarded(Tally())
        let lines = StampedLines { line, _ in
            if line.contains(": run.start ") {
                tally.withLock { line.contains("could not start") ? ($0.failed += 1) : ($0.started += 1) }
            } else if line.contains(": run.exit ") {
                tally.withLock { $0.exited += 1 }
            }
        }
        // Info, not debug: a line per run in and out, not the debug notes of 10,000 owners.
        let daemon = try LaunchedDaemon(configDirectory: work + "/config", workDirectory: work,
                                        environment: ["JOBD_LOG_LEVEL": "info"], standardError: lines.pipe)
        try daemon.waitForReady()
        Thread.sleep(forTimeInterval: 2)
        let before = daemon.probe.residentBytes.rss
        let kindsBefore = daemon.probe.residentKinds
        try Self.wait("every run to start", timeout: Double(startup + sleepSeconds)) {
            tally.withLock { $0.started + $0.failed } >= runs
        }
        Thread.sleep(forTimeInterval: 1)
        let inFlight = daemon.probe.residentBytes
        try Self.wait("every run to end", timeout: Double(sleepSeconds * 4 + 60)) { tally.withLock { $0.exited } >= runs }
        Thread.sleep(forTimeInterval: Double(settleSeconds))
        let after = daemon.probe.residentBytes.rss
        let kindsAfter = daemon.probe.residentKinds
        let (status, _) = daemon.stop()
        lines.waitForEnd()
        return (before, inFlight.rss, inFlight.peak, after, tally.withLock { $0 }, status, (kindsBefore, kindsAfter))
    }

    private static func wait(_ what: String, timeout: Double, until done: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() {
            guard Date() < deadline else { throw BenchmarkFailure("timed out waiting for \(what)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// jobd inherits this process's `RLIMIT_NOFILE` as jobd.service gives it: soft 1,024 (systemd's),
    /// which jobd raises to the hard limit itself, since each run in flight holds its two pipes and
    /// the process's pidfd. The hard limit is raised to `wanted` where this process may (root with
    /// `CAP_SYS_RESOURCE`); elsewhere N is bounded by the hard limit ÷ 3.
    private static func raiseOpenFiles(to wanted: Int) {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_max < rlim_t(wanted) {
            var raised = limit
            raised.rlim_max = rlim_t(wanted)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 {
                limit = raised
            } else {
                FileHandle.standardError.write("cannot raise RLIMIT_NOFILE's hard limit to \(wanted): \(String(cString: strerror(errno)))\n".data(using: .utf8)!)
            }
        }
        limit.rlim_cur = min(1_024, limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

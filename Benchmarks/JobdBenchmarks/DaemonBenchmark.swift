import Foundation
import JobdConfig
import JobdTestKit
import JobdTimers

/// Part 2: the release jobd on `jobs` job files: start to `READY=1`, a reload that changes nothing
/// and reloads that change 10% of the jobs (SIGHUP to `READY=1`), memory, and CPU time over an idle
/// window with no job due; then start to `READY=1` and RSS at `startJobs` calendar jobs (issue 19).
struct DaemonBenchmark {
    var jobs: Int
    var idleSeconds: Int
    var startJobs = 100_000
    var reloads = 5

    func run(_ report: Report) throws {
        report.section("Part 2: daemon, \(jobs) job files", part: "2 daemon")
        let work = NSTemporaryDirectory() + "jobd-bench-daemon-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let files = JobFileSet(count: jobs)
        try files.write(into: work + "/config/jobs.d")
        // A deliberate wait, not a synchronisation: jobd reuses a file only once its times are older
        // than the file system's granularity allows to trust (JobFileCache's racy window). Job files
        // are that old when jobd starts on a real machine; without it every file would be read again
        // at the first reloads.
        Thread.sleep(forTimeInterval: Double(JobFileCache.racyWindowNanoseconds) / 1e9 + 0.1)
        report.note("job files written \(Double(JobFileCache.racyWindowNanoseconds) / 1e9) s before jobd starts, so that unchanged ones are reused")
        let log = work + "/jobd.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let logHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? logHandle.close() }
        report.note("jobd logs to a file (JOBD_LOG_TARGET=stderr); WATCHDOG_USEC=30 s as under the unit")

        let daemon = try LaunchedDaemon(configDirectory: work + "/config", workDirectory: work, standardError: logHandle)
        let ready = try daemon.waitForReady()
        let startNanoseconds = Int64(ready.arrival) - Int64(daemon.launched.nanoseconds)
        report.figure("start to READY=1", Format.duration(nanoseconds: Double(startNanoseconds)))
        report.figure("STATUS=", ready.assignments["STATUS"] ?? "?")
        let rssAfterStart = daemon.probe.residentBytes.rss
        report.figure("VmRSS after start", Format.bytes(Double(rssAfterStart)))
        // Issue 20: jobctl reads a reply of every job without rescanning what it has received.
        // Issue 19: the table and --json, each from jobctl's start to its exit, ≤ 100 ms.
        // Five of each, as for reloads; the first after the start is shown too (jobd's reply buffer
        // and code are cold then), and the medians are judged: what an operator usually meets.
        var medians: [Int64] = []
        for arguments in [["list", "--json"], ["list"]] {
            var times: [Int64] = []
            var statuses: Set<Int32> = []
            for _ in 1...5 {
                let (nanoseconds, status) = try TimedCommand.run(
                    LaunchedDaemon.product("jobctl"), arguments + ["--runtime-dir", daemon.runtimeDirectory])
                times.append(nanoseconds)
                statuses.insert(status)
            }
            medians.append(Percentiles(times).median)
            report.figure("jobctl \(arguments.joined(separator: " ")) of \(jobs) jobs", "median of 5 \(Format.duration(nanoseconds: Double(medians.last!)))"
                + " (" + times.map { Format.duration(nanoseconds: Double($0)) }.joined(separator: ", ") + "), exit \(statuses.sorted())")
        }
        report.target("issue 19: jobctl list at \(jobs) jobs ≤ 100 ms", measured: "median --json \(Format.duration(nanoseconds: Double(medians[0]))), table \(Format.duration(nanoseconds: Double(medians[1])))",
                      passed: medians.allSatisfy { $0 <= 100_000_000 })

        // Several, as the changed ones: one reload's time moves with what else the machine does.
        var unchangedTimes: [Int64] = []
        for _ in 1...reloads { unchangedTimes.append(try daemon.reload().nanoseconds) }
        let unchangedNanoseconds = Percentiles(unchangedTimes).median
        report.figure("reload, nothing changed: SIGHUP to READY=1", "median of \(reloads) \(Format.duration(nanoseconds: Double(unchangedNanoseconds)))"
            + " (" + unchangedTimes.map { Format.duration(nanoseconds: Double($0)) }.joined(separator: ", ") + ")")
        var reloadTimes: [Int64] = []
        for reload in 1...reloads {
            // Alternate between revisions 1 and 2 of every tenth job: each reload changes 10%.
            try files.write(into: work + "/config/jobs.d", revision: 2 - reload % 2, onlyChanged: true)
            let (nanoseconds, status) = try daemon.reload()
            reloadTimes.append(nanoseconds)
            report.figure("reload \(reload) (10% changed): SIGHUP to READY=1", Format.duration(nanoseconds: Double(nanoseconds))
                + ", then VmRSS \(Format.bytes(Double(daemon.probe.residentBytes.rss)))")
            if status.contains("rejected") { report.note("   rejected: \(status)") }
        }
        let reloadStats = Percentiles(reloadTimes)
        report.figure("reload, median of \(reloads)", Format.duration(nanoseconds: Double(reloadStats.median)))
        let memory = daemon.probe.residentBytes
        report.figure("VmRSS after the reloads", Format.bytes(Double(memory.rss)))
        report.figure("VmHWM (peak RSS)", Format.bytes(Double(memory.peak)))

        // The idle window: a deliberate wait, during which nothing is due.
        let probe = daemon.probe
        let cpuBefore = probe.cpuNanoseconds, switchesBefore = probe.contextSwitchesByThread
        let messagesBefore = daemon.notify.messages.count
        Thread.sleep(forTimeInterval: Double(idleSeconds))
        let cpu = probe.cpuNanoseconds - cpuBefore, switches = probe.contextSwitches(since: switchesBefore)
        let pings = daemon.notify.messages[messagesBefore...].filter { $0.assignments["WATCHDOG"] == "1" }.count
        // /proc counts CPU time in clock ticks (10 ms here): 0 means less than one tick.
        let tick = 1e9 / Double(sysconf(Int32(_SC_CLK_TCK)))
        report.figure("CPU time over \(idleSeconds) s idle (utime+stime)", Format.duration(nanoseconds: Double(cpu))
            + " (\(Int(Double(cpu) / tick)) ticks of \(Format.duration(nanoseconds: tick)))"
            + String(format: ", at most %.4f%% of one core", (Double(cpu) + tick) / Double(idleSeconds) / 1e7))
        report.figure("context switches over the idle window", "\(switches) (watchdog pings: \(pings))")

        let (status, stopNanoseconds) = daemon.stop()
        report.figure("SIGTERM to exit (every owner released)", Format.duration(nanoseconds: Double(stopNanoseconds)) + ", exit \(status)")

        report.target("start to READY=1 ≤ 1 s", measured: Format.duration(nanoseconds: Double(startNanoseconds)),
                      passed: startNanoseconds <= 1_000_000_000)
        report.target("reload (10% changed) ≤ 300 ms", measured: "median \(Format.duration(nanoseconds: Double(reloadStats.median))), max \(Format.duration(nanoseconds: Double(reloadStats.max)))",
                      passed: reloadStats.median <= 300_000_000)
        report.target("RSS ≤ 64 MB", measured: "VmRSS \(Format.bytes(Double(memory.rss))), VmHWM \(Format.bytes(Double(memory.peak)))",
                      passed: memory.rss <= 64_000_000)
        report.target("issue 19: reload, nothing changed ≤ 30 ms", measured: "median \(Format.duration(nanoseconds: Double(unchangedNanoseconds)))",
                      passed: unchangedNanoseconds <= 30_000_000)
        report.target("issue 19: reload (10% changed) ≤ 100 ms", measured: "median \(Format.duration(nanoseconds: Double(reloadStats.median)))",
                      passed: reloadStats.median <= 100_000_000)
        if startJobs > 0 { try measureStart(report) }
    }

    /// Issue 19: start to `READY=1` and RSS at `startJobs` calendar jobs (half `OnCalendar=`, half `Cron=`):
    /// five starts on the same files, each stopped before the next; the median is judged, as for
    /// reloads and lists, since one start moves with whatever else the machine does.
    private func measureStart(_ report: Report) throws {
        let work = NSTemporaryDirectory() + "jobd-bench-start-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: work) }
        try JobFileSet(count: startJobs, calendarOnly: true).write(into: work + "/config/jobs.d")
        // The files are written back before jobd starts (and so is the removal of an earlier run's):
        // otherwise the kernel writes back 100,000 new inodes while jobd reads them.
        sync()
        var times: [Int64] = [], largest = (rss: 0, peak: 0)
        for _ in 1...5 {
            let daemon = try LaunchedDaemon(configDirectory: work + "/config", workDirectory: work, standardError: FileHandle.nullDevice)
            let ready = try daemon.waitForReady()
            times.append(Int64(ready.arrival) - Int64(daemon.launched.nanoseconds))
            let memory = daemon.probe.residentBytes
            if memory.rss > largest.rss { largest = memory }
            let (status, _) = daemon.stop()
            if status != 0 { report.note("   jobd exited \(status) after the start at \(startJobs) jobs") }
        }
        let median = Percentiles(times).median
        report.figure("start to READY=1, \(startJobs) calendar jobs", "median of 5 \(Format.duration(nanoseconds: Double(median)))"
            + " (" + times.map { Format.duration(nanoseconds: Double($0)) }.joined(separator: ", ") + ")")
        report.figure("VmRSS after that start, the largest of 5", "\(Format.bytes(Double(largest.rss))) (VmHWM \(Format.bytes(Double(largest.peak))))")
        report.target("issue 19: start to READY=1 at \(startJobs) calendar jobs ≤ 1.5 s", measured: "median \(Format.duration(nanoseconds: Double(median)))",
                      passed: median <= 1_500_000_000)
        report.target("issue 19: RSS at \(startJobs) calendar jobs ≤ 150 MB", measured: "VmRSS \(Format.bytes(Double(largest.rss)))",
                      passed: largest.rss <= 150_000_000)
    }
}

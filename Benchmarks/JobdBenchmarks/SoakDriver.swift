import Foundation
import JobdTestKit
import JobdTimers

/// The inside of the soak run, under `scripts/with-journald`: starts jobd logging to the private
/// journal, reloads it `reloads` times with `jobctl reload` (which waits for each outcome),
/// alternating between the two configurations, stops it, and prints its figures as
/// `soak.KEY VALUE` lines for ``SoakRun``.
struct SoakDriver {
    var directory: String
    var reloads: Int
    var warmUpSeconds = 3.0

    func run() throws {
        let configuration = SoakConfiguration(directory: directory)
        let stderrPath = directory + "/jobd.stderr"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        let daemon = try LaunchedDaemon(
            configDirectory: configuration.configDirectory, workDirectory: directory,
            environment: ["JOBD_LOG_TARGET": "journal"], standardError: standardError)
        try daemon.waitForReady()
        // Warm-up: jobd runs its every-second jobs for a few seconds first. Its first runs touch
        // code and libraries it had not run yet and allocate once what later runs reuse (up to
        // 2 MiB of RSS, most of it file pages): start-up, not what reloads do, which is measured.
        Thread.sleep(forTimeInterval: warmUpSeconds)
        let jobctl = LaunchedDaemon.product("jobctl")
        var times: [Int64] = [], failures = 0, rssAfterTenth = 0, kindsAfterTenth = (anonymous: 0, file: 0)
        for reload in 1...reloads {
            try configuration.use(reload % 2 == 1 ? "b" : "a")
            let start = MonotonicInstant.now()
            let result = try CapturedProcess.run(
                jobctl, ["reload", "--pid", String(daemon.pid), "--runtime-dir", daemon.runtimeDirectory])
            times.append(MonotonicInstant.now().duration(since: start).nanosecondsSaturated)
            if result.status != 0 || !result.exitedNormally {
                failures += 1
                if failures == 1 { print("soak.firstFailure \(reload): \(result.standardError)\(result.standardOutput)") }
            }
            if reload == min(10, reloads) {
                rssAfterTenth = daemon.probe.residentBytes.rss
                kindsAfterTenth = daemon.probe.residentKinds
            }
            // The trend, not only its ends: a steady growth and a one-time step look alike in two figures.
            if reload % 100 == 0 { print("soak.rssAtReload\(reload) \(daemon.probe.residentBytes.rss)") }
        }
        let memory = daemon.probe.residentBytes
        let kinds = daemon.probe.residentKinds
        let (status, stopNanoseconds) = daemon.stop()
        let reloadTimes = Percentiles(times)
        for (key, value) in [
            ("rssAfterTenth", rssAfterTenth), ("rssAfterLast", memory.rss), ("peakRSS", memory.peak),
            ("failedReloads", failures), ("exitStatus", Int(status)), ("stopNanoseconds", Int(stopNanoseconds)),
            ("reloadMedianNanoseconds", Int(reloadTimes.median)), ("reloadP99Nanoseconds", Int(reloadTimes.p99)),
            ("reloadMaxNanoseconds", Int(reloadTimes.max)),
            ("anonymousAfterTenth", kindsAfterTenth.anonymous), ("fileAfterTenth", kindsAfterTenth.file),
            ("anonymousAfterLast", kinds.anonymous), ("fileAfterLast", kinds.file),
        ] {
            print("soak.\(key) \(value)")
        }
    }
}

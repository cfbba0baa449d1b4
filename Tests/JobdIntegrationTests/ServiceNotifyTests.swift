import Foundation
import JobdTestKit
import Testing

/// What jobd tells systemd over the notify socket, and when: checked on a socket the test owns.
@Suite(.serialized) struct ServiceNotifyTests {
    static let job = "[Job]\nOnStartupSec=0\nOnUnitActiveSec=300ms\nExecStart=/bin/true\n"

    func start(_ config: TemporaryConfiguration, _ notify: NotifyListener, extra: [String: String] = [:]) throws -> DaemonProcess {
        try DaemonProcess(arguments: ["--config-dir", config.path], environment: notify.daemonEnvironment(extra))
    }

    @Test func startReloadAndStopAreAnnouncedInOrder() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": Self.job, "other": Self.job])
        let notify = try NotifyListener()
        let daemon = try start(config, notify)

        let ready = try notify.waitForMessage("READY=1") { $0.assignments["READY"] == "1" }
        #expect(notify.messages[ready].assignments["STATUS"]?.hasPrefix("2 job(s), 0 running") == true,
                "READY=1 comes with the status, in one message: \(notify.messages[ready])")
        // jobd's log says it too (waitForEvent throws when it never does).
        _ = try daemon.waitForEvent("daemon.ready")

        try config.remove(job: "other")
        daemon.signal(SIGHUP)
        let reloading = try notify.waitForMessage(from: ready + 1, "RELOADING=1") { $0.assignments["RELOADING"] == "1" }
        let reloadingMessage = notify.messages[reloading].assignments
        #expect(reloadingMessage["MONOTONIC_USEC"].flatMap(UInt64.init) != nil,
                "RELOADING=1 and MONOTONIC_USEC= travel in one message")
        let reloaded = try notify.waitForMessage(from: reloading + 1, "READY=1 after reload") { $0.assignments["READY"] == "1" }
        #expect(notify.messages[reloaded].assignments["STATUS"]?.hasPrefix("1 job(s), ") == true)

        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let stopping = try #require(notify.messages.firstIndex { $0.assignments["STOPPING"] == "1" })
        #expect(stopping > reloaded)
        #expect(!notify.messages[(stopping + 1)...].contains { $0.assignments["READY"] == "1" || $0.assignments["RELOADING"] == "1" },
                "after STOPPING=1, jobd never says it is ready or reloading again")
    }

    @Test func rejectedReloadKeepsTheJobFiringAndSaysWhyInStatusAndLog() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": Self.job])
        let notify = try NotifyListener()
        let daemon = try start(config, notify)
        let ready = try notify.waitForMessage("READY=1") { $0.assignments["READY"] == "1" }

        try config.write(job: "broken", "[Job]\nOnUnitActiveSec=1h\nExecStart=/bin/true\nRandomDelay=5s\n")
        daemon.signal(SIGHUP)

        let reloaded = try notify.waitForMessage(from: ready + 1, "READY=1 after a rejected reload") {
            $0.assignments["READY"] == "1"
        }
        let status = try #require(notify.messages[reloaded].assignments["STATUS"])
        #expect(status.hasPrefix("1 job(s), "), "the broken new file adds no job")
        #expect(status.contains("; 1 broken file(s): broken.job"), "\(status)")
        #expect(status.contains("; next: tick in "), "\(status)")
        let failed = try daemon.waitForEvent("reload.failed")
        #expect(daemon.events("config.error").contains { $0.message.hasPrefix("\(config.path)/jobs.d/broken.job:4: error:") })
        // The job goes on firing after the rejected reload: three more runs, each from the same owner.
        var from = failed
        for _ in 0..<3 { from = try daemon.waitForEvent("run.exit", fields: ["JOB": "tick"], from: from + 1, timeout: .seconds(5)) }
        #expect(Set(daemon.events("timer.fire").compactMap { $0.field("JOBD_OWNER") }).count == 1)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test func watchdogPingsAtHalfTheIntervalWhileTheSchedulerLives() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": Self.job])
        let notify = try NotifyListener()
        // Pings every 500 ms (their period is WatchdogPingerTests'), awaited as they come: a wedged
        // main loop sends none. How late a loaded machine makes them is printed, not asserted.
        let interval: UInt64 = 1_000_000_000
        var launched = timespec()
        clock_gettime(CLOCK_MONOTONIC, &launched)
        let daemon = try start(config, notify, extra: ["WATCHDOG_USEC": String(interval / 1_000)])
        let ready = try notify.waitForMessage("READY=1") { $0.assignments["READY"] == "1" }
        var pings: [UInt64] = []
        var from = ready
        for _ in 0..<6 {
            from = try notify.waitForMessage(from: from + 1, timeout: .seconds(60), "WATCHDOG=1") { $0.assignments["WATCHDOG"] == "1" }
            pings.append(notify.messages[from].arrival)
        }
        // Not a flood: the pinger was armed after the launch and fires at most once a half
        // interval, so the sixth ping cannot come sooner than 3 s after it (lateness only adds).
        let sinceLaunch = (pings.last ?? 0) - (UInt64(launched.tv_sec) * 1_000_000_000 + UInt64(launched.tv_nsec))
        #expect(sinceLaunch >= 6 * interval / 2, "6 pings within \(sinceLaunch / 1_000_000) ms of the launch")
        let gaps = zip(pings.dropFirst(), pings).map { ($0 - $1) / 1_000_000 }
        print("WATCHDOG gaps \(gaps) ms (watchdog 1 s)")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test func stalledMainLoopSendsNoPings() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": Self.job])
        let notify = try NotifyListener()
        let interval: UInt64 = 400_000_000
        let daemon = try start(config, notify, extra: [
            "WATCHDOG_USEC": String(interval / 1_000), "JOBD_FAULT_STALL_SECONDS": "1.5",
        ])
        let ready = try notify.waitForMessage("READY=1") { $0.assignments["READY"] == "1" }
        let firstPing = try notify.waitForMessage(from: ready + 1, "WATCHDOG=1") { $0.assignments["WATCHDOG"] == "1" }

        daemon.signal(SIGUSR2)
        try daemon.waitForLine("the stall begins") { $0.contains("fault injection: the main loop stalls") }

        // The timing thread goes on firing, but the pings need the main loop: none for the stall.
        let stallStarted = notify.messages.count
        let resumed = try notify.waitForMessage(from: stallStarted, timeout: .seconds(10), "WATCHDOG=1 after the stall") {
            $0.assignments["WATCHDOG"] == "1"
        }
        let pingsBefore = notify.messages[..<stallStarted].filter { $0.assignments["WATCHDOG"] == "1" }
        let lastBefore = try #require(pingsBefore.last?.arrival)
        let gap = notify.messages[resumed].arrival - lastBefore
        #expect(gap > interval, "no ping reached systemd while the main loop was stalled (gap \(gap / 1_000_000) ms)")
        #expect(firstPing > ready)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// A notify socket nobody reads (PID 1 in a long `daemon-reload`), its queue full from the
    /// start: jobd never waits on it. Runs go on at their pace and `jobctl` answers throughout;
    /// once the socket is read, the latest status and a ping arrive (issue 26).
    @Test func aNotifySocketNobodyReadsHoldsUpNothing() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": Self.job])
        let notify = try NotifyListener(reading: false)
        let filled = try notify.fillQueue()
        let runtime = config.path + "/run"
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime],
                                       environment: notify.daemonEnvironment(watchdog: .seconds(2)))
        defer { daemon.signal(SIGKILL) }
        let ready = try daemon.waitForEvent("daemon.ready")
        try daemon.waitForLine("the notify socket is full") { $0.contains("notify socket is full") }
        let started = ContinuousClock.now
        // 25 runs, each with its STATUS=, and a status answered before each: with a blocking
        // sd_notify, runs stopped after 8. Paced by the runs themselves: the next one, then the
        // next status.
        var from = ready
        for _ in 0..<25 {
            let jobctl = try DaemonProcess(product: "jobctl", arguments: ["status", "--runtime-dir", runtime])
            let status = try jobctl.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "jobctl status while nobody reads the notify socket: \(jobctl.lines)")
            from = try daemon.waitForEvent("run.exit", fields: ["JOB": "tick"], from: from + 1, timeout: .seconds(60))
        }
        print("NOTIFY-FULL 25 runs of tick, due every 300 ms, in \(ContinuousClock.now - started)")
        #expect(notify.messages.isEmpty, "nothing read yet")

        notify.resume()
        let latest = try notify.waitForMessage(from: filled, "STATUS= once the socket is read") { $0.assignments["STATUS"] != nil }
        #expect(notify.messages[..<filled].allSatisfy { $0.text.hasPrefix("filler ") })
        // What waited goes out ping first, then the READY=1 of the start with the latest status:
        // one STATUS= for all the runs that ended meanwhile, each of which sent one.
        #expect(notify.messages[filled].text == "WATCHDOG=1", "\(notify.messages[filled...].prefix(3))")
        #expect(latest == filled + 1 && notify.messages[latest].assignments["READY"] == "1", "\(notify.messages[filled...].prefix(3))")
        #expect(notify.messages[latest].assignments["STATUS"]?.hasPrefix("1 job(s), ") == true)
        try daemon.waitForLine("the socket takes notifications again") { $0.contains("notify socket takes notifications again") }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}

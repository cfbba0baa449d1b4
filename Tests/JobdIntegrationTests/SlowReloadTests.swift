import Foundation
import JobdTestKit
import Testing

/// A reload reads the configuration on a thread of its own: a hung file system or a slow account
/// look-up never stalls scheduling or the watchdog, and `STATUS=` says what is going on.
@Suite(.serialized) struct SlowReloadTests {
    @Test func jobsFireAndWatchdogPingsFlowWhileAReloadHangs() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": "[Job]\nOnStartupSec=0\nOnUnitActiveSec=200ms\nExecStart=/bin/true\n"])
        let notify = try NotifyListener()
        // Watchdog 1 s: pings every 500 ms. The loader waits 20 s before reading, as a hung NFS
        // mount or LDAP server would make it: what the test awaits below takes some 5 s of it idle.
        let environment = notify.daemonEnvironment(watchdog: .seconds(1), ["JOBD_FAULT_SLOW_LOAD_SECONDS": "20"])
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)
        let ready = try notify.waitForMessage("READY=1") { $0.assignments["READY"] == "1" }

        // A job a reload adds counts from the reload (OnStartupSec=0 would be a slot before it existed).
        try config.write(job: "added", "[Job]\nOnUnitActiveSec=100ms\nExecStart=/bin/true\n")
        daemon.signal(SIGHUP)
        let reloading = try notify.waitForMessage(from: ready + 1, "RELOADING=1") { $0.assignments["RELOADING"] == "1" }
        let start = try daemon.waitForEvent("reload.start")
        // While the loader hangs: runs go on, STATUS= says why, and pings go on (a loop that waited
        // for the load would send none until it ended).
        var from = start
        for _ in 0..<10 { from = try daemon.waitForEvent("run.exit", fields: ["JOB": "tick"], from: from + 1, timeout: .seconds(60)) }
        let slow = try notify.waitForMessage(from: reloading + 1, timeout: .seconds(60), "STATUS= about the slow reload") {
            $0.assignments["STATUS"]?.contains("still reading the configuration") == true
        }
        var ping = reloading
        for _ in 0..<10 { ping = try notify.waitForMessage(from: ping + 1, timeout: .seconds(60), "WATCHDOG=1") { $0.assignments["WATCHDOG"] == "1" } }
        #expect(daemon.events("reload.done").isEmpty && !notify.messages[reloading...].contains { $0.assignments["READY"] == "1" },
                "the runs, the status and the pings came while the loader still hung")
        let done = try notify.waitForMessage(from: slow + 1, timeout: .seconds(60), "READY=1 after the reload") { $0.assignments["READY"] == "1" }
        let pings = notify.messages[reloading...done].filter { $0.assignments["WATCHDOG"] == "1" }.map(\.arrival)
        let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }
        print("SLOW-RELOAD \(pings.count) pings during the reload, the longest gap \((gaps.max() ?? 0) / 1_000_000) ms (watchdog 1 s)")
        try daemon.waitForEvent("reload.done", from: start)
        try daemon.waitForEvent("run.exit", fields: ["JOB": "added"])
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}

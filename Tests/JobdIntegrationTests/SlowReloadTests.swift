import Foundation
import JobdTestKit
import Testing

/// A reload reads the configuration on a thread of its own: a hung file system or a slow account
/// look-up never stalls scheduling or the watchdog, and `STATUS=` says what is going on.
@Suite(.serialized) struct SlowReloadTests {
    @Test func jobsFireAndWatchdogPingsFlowWhileAReloadHangs() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": "[Job]\nOnStartupSec=0\nOnUnitActiveSec=200ms\nExecStart=/bin/true\n"])
        let notify = try NotifyListener()
        // Watchdog 1 s: pings every 500 ms, so the gaps below may take 500 ms of a busy machine's
        // delay; a loop that waited for the 7 s load would leave a gap of seconds and still fail them.
        // The loader waits 7 s before reading, as a hung NFS mount or LDAP server would make it.
        let environment = notify.daemonEnvironment(watchdog: .seconds(1), ["JOBD_FAULT_SLOW_LOAD_SECONDS": "7"])
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)
        let ready = try notify.waitForMessage("READY=1") { $0.assignments["READY"] == "1" }

        // A job a reload adds counts from the reload (OnStartupSec=0 would be a slot before it existed).
        try config.write(job: "added", "[Job]\nOnUnitActiveSec=100ms\nExecStart=/bin/true\n")
        daemon.signal(SIGHUP)
        let reloading = try notify.waitForMessage(from: ready + 1, "RELOADING=1") { $0.assignments["RELOADING"] == "1" }
        let start = try daemon.waitForEvent("reload.start")
        // While the loader hangs: runs go on, and pings never stop for longer than the interval.
        var from = start
        for _ in 0..<10 { from = try daemon.waitForEvent("run.exit", fields: ["JOB": "tick"], from: from + 1, timeout: .seconds(5)) }
        let slow = try notify.waitForMessage(from: reloading + 1, timeout: .seconds(10), "STATUS= about the slow reload") {
            $0.assignments["STATUS"]?.contains("still reading the configuration") == true
        }
        let done = try notify.waitForMessage(from: slow + 1, timeout: .seconds(15), "READY=1 after the reload") { $0.assignments["READY"] == "1" }
        let pings = notify.messages[reloading...done].filter { $0.assignments["WATCHDOG"] == "1" }.map(\.arrival)
        // About 14 in the 7 s the loader hangs.
        #expect(pings.count >= 10, "pings went on during the reload: \(pings.count)")
        let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 < 1_000_000_000 }, "no gap as long as the watchdog interval: \(gaps)")
        try daemon.waitForEvent("reload.done", from: start)
        try daemon.waitForEvent("run.exit", fields: ["JOB": "added"])
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}

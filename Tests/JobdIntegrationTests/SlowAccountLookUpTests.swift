import Foundation
import JobdTestKit
import Testing

/// A run's `User=` look-up (NSS: LDAP, sssd) happens on a thread of its own: runs whose look-ups
/// hang hold only themselves, while other jobs fire and the watchdog pings go on. Before, the
/// look-ups ran on Swift's concurrency pool (one thread per core), so as many hung look-ups as
/// cores stalled jobd's main loop, and with it every job and the watchdog.
@Suite(.serialized) struct SlowAccountLookUpTests {
    @Test func otherJobsFireAndPingsFlowWhileRunsWaitForTheirAccounts() throws {
        // More hung look-ups than the pool has threads, on any machine.
        let hung = ProcessInfo.processInfo.activeProcessorCount + 2
        var jobs = ["tick": "[Job]\nOnStartupSec=0\nOnUnitActiveSec=200ms\nExecStart=/bin/true\n"]
        for index in 0..<hung { jobs["ldap\(index)"] = "[Job]\nOnStartupSec=0\nUser=root\nExecStart=/bin/true\n" }
        let config = try TemporaryConfiguration(jobs: jobs)
        let notify = try NotifyListener()
        // Pings every 500 ms. Each User= look-up waits 20 s first, as a hung LDAP server would make
        // it: what the test awaits below takes some 4 s of it idle.
        let environment = notify.daemonEnvironment(watchdog: .seconds(1), ["JOBD_FAULT_SLOW_ACCOUNT_SECONDS": "20"])
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)
        let ready = try notify.waitForMessage("READY=1") { $0.assignments["READY"] == "1" }
        let start = try daemon.waitForEvent("daemon.ready")

        // While the look-ups hang: the other job runs again and again, and the pings go on (a loop
        // that waited for a look-up would send none until it ended).
        var from = start
        for _ in 0..<10 { from = try daemon.waitForEvent("run.exit", fields: ["JOB": "tick"], from: from + 1, timeout: .seconds(60)) }
        var ping = ready
        for _ in 0..<8 { ping = try notify.waitForMessage(from: ping + 1, timeout: .seconds(60), "WATCHDOG=1") { $0.assignments["WATCHDOG"] == "1" } }
        let ldapStarts = daemon.events("run.start").filter { $0.field("JOB")?.hasPrefix("ldap") == true }
        #expect(ldapStarts.isEmpty, "the ticks and the pings came while every look-up still hung")
        try daemon.waitForEvent("run.start", fields: ["JOB": "ldap0"], timeout: .seconds(60))
        let pings = notify.messages[ready...].filter { $0.assignments["WATCHDOG"] == "1" }.map(\.arrival)
        let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }
        print("SLOW-ACCOUNT \(pings.count) pings while the look-ups hung, the longest gap \((gaps.max() ?? 0) / 1_000_000) ms (watchdog 1 s)")
        // The hung runs start once their accounts are found, in whatever order the look-ups end
        // (ldap2's run may exit before ldap0's starts).
        for index in 0..<hung { try daemon.waitForEvent("run.exit", fields: ["JOB": "ldap\(index)"], from: start, timeout: .seconds(60)) }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}

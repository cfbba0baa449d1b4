import Foundation
import JobdConfig
import JobdTestKit
import Testing

/// jobd's start-up read fills the cache of job files, so that the first reload after a start reads
/// only the files that changed (issue 19), as later reloads do; `reload.done` says how many it read.
@Suite(.serialized) struct ReloadCacheTests {
    @Test func theFirstReloadAfterTheStartReadsOnlyTheChangedFile() throws {
        let job = "[Job]\nOnCalendar=2099-01-01\nExecStart=/bin/true\n"
        let config = try TemporaryConfiguration(jobs: ["a": job, "b": job, "c": job])
        // A deliberate wait, not a synchronisation: a file is reused only once its times are older
        // than the cache's racy window at the read, as job files are when jobd starts on a machine.
        Thread.sleep(forTimeInterval: Double(JobFileCache.racyWindowNanoseconds) / 1e9 + 0.2)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path])
        let ready = try daemon.waitForEvent("daemon.ready")

        daemon.signal(SIGHUP)
        let unchanged = try daemon.waitForEvent("reload.done", from: ready)
        #expect(daemon.lines[unchanged].hasSuffix("0 job file(s) new or changed and read, 3 unchanged"), "\(daemon.lines[unchanged])")

        try config.write(job: "b", job + "Description=changed\n")
        daemon.signal(SIGHUP)
        let changed = try daemon.waitForEvent("reload.done", from: unchanged + 1)
        #expect(daemon.lines[changed].contains("1 changed"), "\(daemon.lines[changed])")
        #expect(daemon.lines[changed].hasSuffix("1 job file(s) new or changed and read, 2 unchanged"), "\(daemon.lines[changed])")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}

import Foundation
import JobdTestKit
import Testing

/// jobd in cron mode (`[Cron]` `Enable=yes`, turned on by a reload, issue 38) picks up a file
/// dropped into `/etc/cron.d` with no reload command: inotify tells it, and it reloads as for a SIGHUP.
@Suite(.serialized) struct CronModeTests {
    @Test(.enabled(if: getuid() == 0, "cron reads only root's files in /etc/cron.d"))
    func aFileDroppedIntoCronDIsPickedUpWithoutAReload() throws {
        let config = try TemporaryConfiguration()
        let root = config.path + "/cron-root"
        try FileManager.default.createDirectory(atPath: root + "/etc/cron.d", withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment.filter { !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"].contains($0.key) }
        environment["JOBD_CRON_ROOT"] = root
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)
        defer { daemon.signal(SIGTERM) }
        let started = try daemon.waitForEvent("daemon.ready")
        #expect(daemon.lines[started].contains("jobd ready: 0 job(s)"), "\(daemon.lines[started])")
        // Cron mode turned on by jobd.conf and a reload, as an administrator would, without a restart.
        try "[Cron]\nEnable=yes\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let ready = try daemon.waitForEvent("reload.done", from: started)

        // A package's file: root's, mode 0644; a second file with a dot in its name, which cron skips.
        try "# m h dom mon dow user command\n0 4 * * * root echo from-cron\n".write(toFile: root + "/etc/cron.d/example", atomically: false, encoding: .utf8)
        try "0 4 * * * root echo skipped\n".write(toFile: root + "/etc/cron.d/example.dpkg-old", atomically: false, encoding: .utf8)
        let reload = try daemon.waitForLine(from: ready, "a reload for cron's files") {
            $0.contains("reload.start") && $0.contains("cron's files changed (\(root)/etc/cron.d/example")
        }
        // The file's creation and its close are two changes: the reload after the last has the job.
        let done = try daemon.waitForLine(from: reload, "the cron line added") { $0.contains("reload.done") && $0.contains("1 added") }

        // A broken line disables itself alone, named with its file and line.
        try "0 4 * * * root echo from-cron\n61 * * * * root echo broken\n".write(toFile: root + "/etc/cron.d/example", atomically: false, encoding: .utf8)
        let error = try daemon.waitForLine(from: done, "the broken line's error") { $0.contains("\(root)/etc/cron.d/example:2") }
        #expect(daemon.lines[error].contains("'61 * * * *' is not a schedule"), "\(daemon.lines[error])")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// Where inotify cannot tell (here /etc/cron.d is missing when the watch begins, so nothing
    /// watches it), cron's own per-minute look finds a file by the next minute's turn, as cron does,
    /// and from then on the directory is watched: a second change is heard at once.
    @Test(.enabled(if: getuid() == 0, "cron reads only root's files in /etc/cron.d"))
    func aDirectoryMissingAtTheStartIsFoundByThePerMinuteLook() throws {
        let config = try TemporaryConfiguration()
        let root = config.path + "/cron-root"
        try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
        try "[Cron]\nEnable=yes\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment.filter { !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"].contains($0.key) }
        environment["JOBD_CRON_ROOT"] = root
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)
        defer { daemon.signal(SIGTERM) }
        let started = try daemon.waitForEvent("daemon.ready")
        // A change inotify hears (/etc is watched, for crontab) shows that the watch has begun. Its
        // reload names /etc/crontab, or, when its event came while jobd was still starting, says "a
        // change while jobd started" (and the reload for the event itself then adds nothing): the
        // line is added by whichever came first (ci94 waited for the second).
        try "0 3 * * * root echo from-crontab\n".write(toFile: root + "/etc/crontab", atomically: false, encoding: .utf8)
        let watching = try daemon.waitForLine(from: started, "inotify's reload for /etc/crontab") {
            $0.contains("reload.start") && ($0.contains("\(root)/etc/crontab") || $0.contains("a change while jobd started"))
        }
        let first = try daemon.waitForLine(from: watching, "the crontab's line added") { $0.contains("reload.done") && $0.contains("1 added") }

        // Made, with its file, after the watch began: no inotify watch sees inside it.
        try FileManager.default.createDirectory(atPath: root + "/etc/cron.d", withIntermediateDirectories: false)
        try "0 4 * * * root echo from-cron\n".write(toFile: root + "/etc/cron.d/late", atomically: false, encoding: .utf8)
        // By the next minute's turn, and a little after (at most 60 s; 130 s allowed for a loaded machine).
        let reload = try daemon.waitForLine(from: first, timeout: .seconds(130), "the per-minute look's reload") {
            $0.contains("reload.start") && $0.contains("the per-minute check")
        }
        let done = try daemon.waitForLine(from: reload, "the cron line added") { $0.contains("reload.done") && $0.contains("1 added") }
        // The look watched the directory it found: the next file is heard at once, by inotify.
        try "0 5 * * * root echo second\n".write(toFile: root + "/etc/cron.d/second", atomically: false, encoding: .utf8)
        let heard = try daemon.waitForLine(from: done, "inotify's reload") {
            $0.contains("reload.start") && $0.contains("\(root)/etc/cron.d/second")
        }
        _ = try daemon.waitForLine(from: heard, "the second line added") { $0.contains("reload.done") && $0.contains("1 added") }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}

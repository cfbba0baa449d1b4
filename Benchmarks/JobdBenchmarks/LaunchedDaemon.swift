import Foundation
import JobdTestKit
import JobdTimers

/// The release `jobd` started on a configuration directory, with its own runtime and state
/// directories and a notify socket the benchmark owns, so that readiness and reloads are awaited
/// as systemd would await them: by `READY=1`.
final class LaunchedDaemon {
    let process = Process()
    let notify: NotifyListener
    /// Just before the process was started, on `CLOCK_MONOTONIC`.
    let launched: MonotonicInstant
    let runtimeDirectory: String

    /// Starts jobd. `standardError` is a `FileHandle` or a `Pipe` (jobd's log, with
    /// `JOBD_LOG_TARGET=stderr`, unless `environment` says otherwise).
    /// In `cgroup` (delegated, as by jobd.service's `Delegate=yes`), jobd gives each run a cgroup of its own.
    /// `runtimeDirectory`: jobd's (`--runtime-dir`), `run` in `workDirectory` unless given.
    init(configDirectory: String, workDirectory: String, runtimeDirectory: String? = nil, environment extra: [String: String] = [:],
         cgroup: DelegatedTestCgroup? = nil, standardError: Any) throws {
        notify = try NotifyListener()
        self.runtimeDirectory = runtimeDirectory ?? workDirectory + "/run"
        let stateDirectory = workDirectory + "/state"
        for directory in [self.runtimeDirectory, stateDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let arguments = ["--config-dir", configDirectory, "--runtime-dir", self.runtimeDirectory, "--state-dir", stateDirectory]
        let (executable, words) = cgroup?.launch(Self.product("jobd"), arguments) ?? (Self.product("jobd"), arguments)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = words
        var environment = ProcessInfo.processInfo.environment.filter {
            !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "JOURNAL_STREAM"].contains($0.key)
        }
        environment["NOTIFY_SOCKET"] = notify.address
        environment["JOBD_LOG_TARGET"] = "stderr"
        // Every level, as the journal gets it: the logging cost measured is the journal's.
        environment["JOBD_LOG_LEVEL"] = "debug"
        environment["TZ"] = "UTC"
        // As under systemd/jobd.service (WatchdogSec=30s): the pings are part of an idle jobd's wake-ups.
        environment["WATCHDOG_USEC"] = "30000000"
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = standardError
        process.standardError = standardError
        launched = .now()
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// A built product next to this executable (`jobd`, `jobctl`): the same scratch path and configuration.
    static func product(_ name: String) -> String {
        DaemonProcess.productsDirectory + "/" + name
    }

    var pid: Int32 { process.processIdentifier }
    var probe: ProcessProbe { ProcessProbe(pid: pid) }

    /// Waits for `READY=1` at message index `start` or later; returns the message.
    @discardableResult
    func waitForReady(from start: Int = 0, timeout: Duration = .seconds(120)) throws -> NotifyListener.Message {
        let index = try notify.waitForMessage(from: start, timeout: timeout, "READY=1") { $0.assignments["READY"] == "1" }
        return notify.messages[index]
    }

    /// Sends SIGHUP and waits for the reload's `READY=1`; returns the time from the signal to it
    /// and the `STATUS=` that came with it.
    func reload() throws -> (nanoseconds: Int64, status: String) {
        let start = notify.messages.count
        let signalled = MonotonicInstant.now()
        kill(pid, SIGHUP)
        let reloading = try notify.waitForMessage(from: start, timeout: .seconds(120), "RELOADING=1") {
            $0.assignments["RELOADING"] == "1"
        }
        let ready = try waitForReady(from: reloading + 1)
        return (Int64(ready.arrival) - Int64(signalled.nanoseconds), ready.assignments["STATUS"] ?? "")
    }

    /// SIGTERM, then waits for the exit; returns the exit status and how long stopping took.
    func stop() -> (status: Int32, nanoseconds: Int64) {
        let start = MonotonicInstant.now()
        kill(pid, SIGTERM)
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, MonotonicInstant.now().duration(since: start).nanosecondsSaturated)
    }
}

import Foundation

extension JournalFollower {
    /// Starts jobd on `config`, logging to the journal this follower reads, with its control socket
    /// in `runtime`, and waits for its `daemon.ready`. `childVariable`, the variable that made this
    /// process a test's child scenario, is not passed on.
    package func startDaemon(_ config: TemporaryConfiguration, runtime: String, childVariable: String) throws -> DaemonProcess {
        var environment = ProcessInfo.processInfo.environment
        environment["JOBD_LOG_TARGET"] = "journal"
        environment["RUNTIME_DIRECTORY"] = runtime
        environment.removeValue(forKey: childVariable)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)
        try waitFor(event: "daemon.ready")
        return daemon
    }
}

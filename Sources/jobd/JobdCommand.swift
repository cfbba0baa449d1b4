import ArgumentParser
import Foundation
import JobdDaemon
import JobdLogging
import Logging
import SystemdKit

/// jobd: the job scheduler daemon. Thin: parse the arguments, set up logging, run the daemon.
@main
struct JobdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobd",
        abstract: "Run jobs on weak-target timers, as defined in CONFIG_DIR/jobs.d/*.job.",
        version: "0.1.0")

    @Option(name: .customLong("config-dir"), help: "The configuration directory, holding jobs.d/.")
    var configDirectory = "/etc/jobd"

    func run() async throws {
        JobdLoggingSystem.bootstrap(identifier: "jobd", level: .info)
        var logger = Logger(label: "jobd")
        // New at every start, so that the journal's events group by the jobd run that wrote them.
        let instance = (try? ID128.random()) ?? String(UInt64.random(in: .min ... .max), radix: 16)
        logger[metadataKey: JobdField.instance] = .string(instance)
        let daemon = Daemon(
            options: DaemonOptions(configDirectory: configDirectory, environment: ProcessInfo.processInfo.environment),
            logger: logger)
        let status = await daemon.run()
        if status != 0 { throw ExitCode(status) }
    }
}


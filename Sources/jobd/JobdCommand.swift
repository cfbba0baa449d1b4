import ArgumentParser
import Foundation
import JobdDaemon
import Logging

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
        let instance = (0..<2).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }
            .map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        var logger = Logger(label: "jobd")
        logger[metadataKey: "JOBD_INSTANCE"] = .string(instance)
        let daemon = Daemon(
            options: DaemonOptions(configDirectory: configDirectory, environment: ProcessInfo.processInfo.environment),
            logger: logger)
        let status = await daemon.run()
        if status != 0 { throw ExitCode(status) }
    }
}


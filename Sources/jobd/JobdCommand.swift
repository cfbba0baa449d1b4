import ArgumentParser
import FoundationEssentials
import Glibc
import JobctlCommands
import JobdControl
import JobdDaemon
import JobdLogging
import Logging
import SystemdKit
import JobdHost

/// jobd's entry point: bounds the malloc arenas while only the main thread has allocated (one
/// arena keeps RSS steady across reloads), then runs the command.
///
/// jobd and jobctl ship as one binary (issue 28: the two were 19 and 18 MB, most of it the same
/// Swift runtime): jobctl is a link to jobd, and so is crontab (issue 38), and the name it was
/// started by chooses. The `jobctl` product, built on its own, stays for development and the tests.
@main
enum JobdMain {
    static func main() async {
        switch Self.startedAs {
        case "jobctl":
            await Jobctl.main()
            return
        case "crontab":
            // Debian's crontab(1), through jobd's control socket (the binary is never setgid).
            Crontab.main()
        default: break
        }
        MallocArenas.bound()
        await JobdCommand.main()
    }

    /// The last component of `argv[0]`: `jobctl` and `crontab` are links to jobd.
    static var startedAs: String {
        guard let name = CommandLine.arguments.first else { return "" }
        return name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    }
}

/// jobd: the job scheduler daemon. Thin: parse the arguments, set up logging, run the daemon.
struct JobdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobd",
        abstract: "The job scheduler daemon: runs the jobs of CONFIG_DIR/jobs.d/*.job when they fall due.",
        discussion: "Run by jobd.service (systemctl start jobd); jobctl(1) lists, runs and inspects its jobs. See jobd(8) and jobd.job(5).",
        version: BuildInfo.versionText)

    @Option(name: .customLong("config-dir"), help: "The configuration directory, holding jobs.d/.")
    var configDirectory = "/etc/jobd"

    @Option(name: .customLong("runtime-dir"),
            help: "Where the control socket and jobd.pid go (default: $RUNTIME_DIRECTORY, else /run/jobd).")
    var runtimeDirectory: String?

    @Option(name: .customLong("state-dir"),
            help: "Where Persistent= stamps and the last boot id are kept (default: $STATE_DIRECTORY, else /var/lib/jobd).")
    var stateDirectory: String?

    @Option(name: .customLong("spool-dir"),
            help: "Where users' own jobs are kept (default: $JOBD_SPOOL_DIRECTORY, else /var/spool/jobd).")
    var spoolDirectory: String?

    func run() async throws {
        // Bounded already (JobdMain); again, to know whether glibc took it.
        let arenasBounded = MallocArenas.bound()
        // Debug: the owner and timer bookkeeping that `jobctl audit` reads is logged at debug priority,
        // stored by journald but out of `journalctl -p info`. `timer.schedule` is trace, never sent.
        JobdLoggingSystem.bootstrap(identifier: "jobd", level: .debug)
        // Log calls only queue their entries: what waits is written before jobd exits.
        defer { JobdLoggingSystem.shutdown() }
        let environment = ProcessInfo.processInfo.environment
        var logger = Logger(label: "jobd")
        // New at every start, so that the journal's events group by the jobd run that wrote them.
        let instance = (try? ID128.random()) ?? String(UInt64.random(in: .min ... .max), radix: 16)
        logger[metadataKey: JobdField.instance] = .string(instance)
        if !arenasBounded { logger.warning("glibc refused M_ARENA_MAX=\(MallocArenas.jobdLimit): malloc arenas are not bounded") }
        let daemon = Daemon(
            options: DaemonOptions(
                configDirectory: configDirectory,
                runtimeDirectory: runtimeDirectory ?? ControlProtocol.defaultRuntimeDirectory(environment: environment),
                stateDirectory: stateDirectory ?? Daemon.defaultStateDirectory(environment: environment),
                spoolDirectory: spoolDirectory ?? Daemon.defaultSpoolDirectory(environment: environment),
                instance: instance, environment: environment),
            logger: logger)
        let status = await daemon.run()
        if status != 0 { throw ExitCode(status) }
    }
}


import FoundationEssentials
import Glibc
import JobdControl
import JobdDaemon
import JobdLogging
import Logging

/// The tests' own build of jobd: jobd's daemon with the faults a test names in its environment
/// (``DaemonFaults``), which the shipped jobd has no way to set. The integration tests start it
/// in place of jobd when they name one (`DaemonProcess`). Takes jobd's directory options.
///
/// - `JOBD_FAULT_STALL_SECONDS`: SIGUSR2 blocks the main loop that long.
/// - `JOBD_FAULT_SLOW_LOAD_SECONDS`: a reload waits that long before it reads.
/// - `JOBD_FAULT_SLOW_ACCOUNT_SECONDS`: each run's account look-up waits that long.
/// - `JOBD_FAULT_CLOCK_SKEW_MSEC`: added to the wall clock (±).
/// - `JOBD_FAULT_METRICS_REWRITE_SECONDS`: the metrics file's rewrite interval (0.1 to 60).
@main
enum JobdFaultsMain {
    static func main() async {
        let environment = ProcessInfo.processInfo.environment
        var options: [String: String] = [:]
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let name = arguments.next() { options[name] = arguments.next() }
        JobdLoggingSystem.bootstrap(identifier: "jobd", level: .debug)
        let instance = String(UInt64.random(in: .min ... .max), radix: 16)
        var logger = Logger(label: "jobd")
        logger[metadataKey: JobdField.instance] = .string(instance)
        var daemonOptions = DaemonOptions(
            configDirectory: options["--config-dir"] ?? "/etc/jobd",
            runtimeDirectory: options["--runtime-dir"] ?? ControlProtocol.defaultRuntimeDirectory(environment: environment),
            stateDirectory: options["--state-dir"] ?? Daemon.defaultStateDirectory(environment: environment),
            spoolDirectory: options["--spool-dir"] ?? Daemon.defaultSpoolDirectory(environment: environment),
            instance: instance, environment: environment)
        daemonOptions.faults = faults(environment)
        let status = await Daemon(options: daemonOptions, logger: logger).run()
        JobdLoggingSystem.shutdown()
        exit(status)
    }

    static func faults(_ environment: [String: String]) -> DaemonFaults {
        func seconds(_ name: String) -> Duration? {
            environment[name].flatMap(Double.init).map { .microseconds(Int64(min($0, 600) * 1_000_000)) }
        }
        var faults = DaemonFaults()
        faults.stall = seconds("JOBD_FAULT_STALL_SECONDS")
        faults.slowLoad = seconds("JOBD_FAULT_SLOW_LOAD_SECONDS")
        faults.slowAccountLookUp = seconds("JOBD_FAULT_SLOW_ACCOUNT_SECONDS")
        faults.clockSkew = .milliseconds(environment["JOBD_FAULT_CLOCK_SKEW_MSEC"].flatMap(Int64.init) ?? 0)
        faults.metricsRewrite = seconds("JOBD_FAULT_METRICS_REWRITE_SECONDS").map { max(.milliseconds(100), min($0, .seconds(60))) }
        return faults
    }
}

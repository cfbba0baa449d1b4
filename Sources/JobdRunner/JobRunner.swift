import JobdConfig
import JobdLogging
import JobdTimers
import Logging
import Subprocess
import Synchronization
import Glibc

#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Starts a job's command and waits for it, logging `run.start` (with the PID) and `run.exit`
/// (with `EXIT_CODE=`, `EXIT_STATUS=` and the duration). A command that cannot be started is a
/// failed run that is logged, never an error that reaches the daemon.
///
/// Each run gets its own session (and so its own process group), stdin from `/dev/null`, the job's
/// working directory, and a clean environment: a default `PATH`, `LANG` from jobd's, the job's
/// `Environment=`, and `JOBD_JOB`/`JOBD_RUN`. Nothing else of jobd's environment reaches a job
/// (not `NOTIFY_SOCKET`, `WATCHDOG_*` or `LISTEN_*`).
public struct JobRunner: Sendable {
    /// The `PATH` a job gets unless its `Environment=` sets one: systemd's default for services.
    public static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    private static let nextRunID = Atomic<UInt64>(1)

    private let logger: Logger
    private let inheritedLanguage: String?
    /// Every run this runner has in flight.
    public let registry: RunRegistry

    public init(logger: Logger, environment: [String: String], registry: RunRegistry = RunRegistry()) {
        self.logger = logger
        self.inheritedLanguage = environment["LANG"]
        self.registry = registry
    }

    /// A new run id, unique in this process.
    public static func makeRunID() -> UInt64 {
        nextRunID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The environment a run of `definition` gets.
    public func environment(for definition: JobDefinition, runID: UInt64) -> [String: String] {
        var environment = ["PATH": Self.defaultPath]
        if let inheritedLanguage { environment["LANG"] = inheritedLanguage }
        for variable in definition.environment { environment[variable.name] = variable.value }
        environment["JOBD_JOB"] = definition.name
        environment["JOBD_RUN"] = String(runID)
        return environment
    }

    /// Runs `definition`'s command to completion.
    public func run(_ definition: JobDefinition, runID: UInt64) async -> RunOutcome {
        let environment = environment(for: definition, runID: runID)
        let argv = definition.command.argv(environment: environment)
        let started = MonotonicInstant.now()
        var fields = [JobdField.job: definition.name, JobdField.run: String(runID)]

        let executable: Executable = argv[0].hasPrefix("/") ? .path(FilePath(argv[0])) : .name(argv[0])
        var options = PlatformOptions()
        options.createSession = true
        // As systemd: `/` unless the job names a directory; an optional one that is missing also means `/`.
        var workingDirectory = FilePath("/")
        if let directory = definition.workingDirectory, !directory.optional || Self.isDirectory(directory.path) {
            workingDirectory = FilePath(directory.path)
        }
        let pidBox = Mutex<Int32?>(nil)
        let termination: RunTermination
        do {
            let result = try await Subprocess.run(
                executable,
                arguments: Arguments(Array(argv.dropFirst())),
                environment: .custom(Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(rawValue: $0.key)!, $0.value) })),
                workingDirectory: workingDirectory,
                platformOptions: options,
                input: .none,
                output: .sequence,
                error: .sequence
            ) { execution in
                let pid = execution.processIdentifier.value
                pidBox.withLock { $0 = pid }
                registry.register(runID: runID, pid: pid)
                var startFields = fields
                startFields[JobdField.pid] = String(pid)
                logger.event(.runStart, "run \(runID) of \(definition.name) started: \(definition.command.text)", startFields)
                let standardOutput = execution.standardOutput
                let standardError = execution.standardError
                let runner = self
                let outputFields = fields
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await runner.forward(standardOutput, level: .info, fields: outputFields) }
                    group.addTask { await runner.forward(standardError, level: .error, fields: outputFields) }
                }
            }
            switch result.terminationStatus {
            case .exited(let status): termination = .exited(status)
            case .signaled(let signal): termination = .killed(signal: signal)
            }
        } catch {
            termination = .failedToStart(String(describing: error))
            logger.event(.runStart, level: .error, "run \(runID) of \(definition.name) could not start: \(error)", fields)
        }
        // Only now is the process reaped; until then a shutdown must still be able to signal it.
        registry.unregister(runID: runID)
        let finished = MonotonicInstant.now()
        let pid = pidBox.withLock { $0 }
        let succeeded: Bool = switch termination {
        case .exited(let status): status == 0 || definition.command.ignoresFailure
        case .killed, .failedToStart: false
        }
        fields[JobdField.exitCode] = termination.exitCode
        fields[JobdField.exitStatus] = termination.exitStatus
        let elapsed = TimeSpan(microseconds: UInt64(max(0, finished.duration(since: started).nanosecondsSaturated / 1_000)))
        fields[JobdField.durationUSec] = String(elapsed.microseconds)
        if let pid { fields[JobdField.pid] = String(pid) }
        logger.event(.runExit, level: succeeded ? .info : .warning,
                     "run \(runID) of \(definition.name) \(termination) after \(elapsed)", fields)
        return RunOutcome(runID: runID, job: definition.name, pid: pid, termination: termination,
                          started: started, finished: finished, succeeded: succeeded)
    }

    /// Logs each line a run writes as its own `run.output` entry: priority 6 for stdout (info), 3 for
    /// stderr (error), with the job and run, so `journalctl JOB=backup` shows a job's own words.
    private func forward(_ output: SubprocessOutputSequence, level: Logger.Level, fields: [String: String]) async {
        var splitter = OutputLineSplitter()
        let emit = { (line: String) in logger.event(.runOutput, level: level, line, fields) }
        do {
            for try await buffer in output {
                buffer.withUnsafeBytes { splitter.append($0, emit: emit) }
            }
        } catch {
            // The pipe failed; the exit status still tells how the run ended.
        }
        splitter.finish(emit: emit)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}

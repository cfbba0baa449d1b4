import Glibc
package import JobdConfig
import JobdLocks
import JobdLogging
import JobdTimers
package import Logging
import Subprocess

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
/// working directory and account (`User=`, `Group=`), and a clean environment (see
/// ``environment(for:account:files:runID:)``), and, where jobd has a delegated cgroup subtree, a
/// cgroup of its own (``RunTracking``). Beside each run a watcher stops it when it outlives
/// `RuntimeMaxSec=` or when jobd asks (``RunRegistry``): SIGTERM to its processes, then SIGKILL
/// after `TimeoutStopSec=`.
package struct JobRunner: Sendable {
    /// The `PATH` a job gets unless its `Environment=` sets one: systemd's default for services.
    package static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    let logger: Logger
    private let inheritedLanguage: String?
    /// Every run this runner has in flight.
    package let registry: RunRegistry
    /// Who follows which run's output (`jobctl run --wait`).
    package let outputTaps = RunOutputTaps()
    /// For the tests (`JOBD_FAULT_SLOW_ACCOUNT_SECONDS`): each `User=`/`Group=` look-up of a run
    /// waits this long first, as a hung LDAP server or sssd would make it.
    package static let slowAccountVariable = "JOBD_FAULT_SLOW_ACCOUNT_SECONDS"
    private let slowAccountLookUp: Double?
    /// Process groups or cgroups; without one given, found out (and logged) here.
    package let tracking: RunTracking

    package init(logger: Logger, environment: [String: String], registry: RunRegistry = RunRegistry(), tracking: RunTracking? = nil) {
        self.logger = logger
        self.inheritedLanguage = environment["LANG"]
        self.slowAccountLookUp = environment[Self.slowAccountVariable].flatMap(Double.init)
        self.registry = registry
        self.tracking = tracking ?? .detect(logger: logger)
    }

    /// The environment a run of `definition` gets, as systemd composes a service's: a default
    /// `PATH`, `LANG` from jobd's, `USER`, `LOGNAME`, `HOME` and `SHELL` of its `User=`, then its
    /// `Environment=`, then its `EnvironmentFile=`s (later ones win), then `context` (what a run
    /// started by another job's outcome is told), and `JOBD_JOB`, `JOBD_RUN`, `JOBD_RUN_ID`.
    package func environment(
        for definition: JobDefinition, account: Account? = nil, files: [EnvironmentVariable] = [], runID: UInt64,
        invocationID: String = "", context: [String: String] = [:]
    ) -> [String: String] {
        var environment = ["PATH": Self.defaultPath]
        if let inheritedLanguage { environment["LANG"] = inheritedLanguage }
        if let account, let user = account.userName {
            environment["USER"] = user
            environment["LOGNAME"] = user
            if let home = account.home { environment["HOME"] = home }
            if let shell = account.shell { environment["SHELL"] = shell }
        }
        for variable in definition.environment + files { environment[variable.name] = variable.value }
        environment.merge(context) { $1 }
        environment["JOBD_JOB"] = definition.name
        environment["JOBD_RUN"] = String(runID)
        if !invocationID.isEmpty { environment["JOBD_RUN_ID"] = invocationID }
        return environment
    }

    /// Runs `definition`'s command to completion. `context` is added to its environment; `fields`
    /// to each of its journal entries.
    package func run(
        _ definition: JobDefinition, runID: UInt64, invocationID: String,
        context: [String: String] = [:], fields extraFields: [String: String] = [:]
    ) async -> RunOutcome {
        let started = MonotonicInstant.now()
        var fields = extraFields.merging([
            JobdField.job: definition.name, JobdField.run: String(runID), JobdField.runID: invocationID,
        ]) { $1 }
        let stopRequests = registry.add(runID: runID, job: definition.name)
        let stopReason = StopRecord()
        var termination: RunTermination
        var pid: pid_t?
        var cgroup: RunCgroup?
        switch await prepareAside(definition, runID: runID, invocationID: invocationID, context: context) {
        case .failure(let reason):
            termination = .failedToStart(reason.description)
        case .success(var configuration):
            cgroup = makeCgroup(definition, runID: runID, invocationID: invocationID, fields: fields)
            configuration.cgroup = cgroup
            if let cgroup { fields[JobdField.cgroup] = cgroup.path }
            let startFields = fields
            (termination, pid) = await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await watch(definition, runID: runID, fields: startFields, requests: stopRequests) { stopReason.record($0) }
                }
                defer { group.cancelAll() }
                return await spawn(configuration, definition: definition, runID: runID, fields: startFields)
            }
        }
        // Whether preparing it or spawning it failed, the reason is logged as the run's start.
        if case .failedToStart(let reason) = termination {
            logger.event(.runStart, level: .error, "run \(runID) of \(definition.name) could not start: \(reason)", fields)
        }
        // What the run left behind in its process group or cgroup is stopped before the run ends
        // (and before it leaves the registry, so that a stop of jobd still reaches it).
        var leftovers = 0
        if let pid { leftovers = await stopLeftovers(of: definition, group: pid, cgroup: cgroup, fields: fields) }
        // A run that never started has its cgroup removed, and no usage to report.
        let usage = cgroup.flatMap { finish($0, keep: leftovers > 0 && definition.killMode != .controlGroup) }.flatMap { pid == nil ? nil : $0 }
        // Only now is the process reaped; until then a stop must still be able to signal it.
        registry.remove(runID: runID)
        let finished = MonotonicInstant.now()
        let reason = stopReason.reason
        let result = RunOutcome.result(of: termination, stopReason: reason, ignoresFailure: definition.command.ignoresFailure)
        fields[JobdField.exitCode] = termination.exitCode
        fields[JobdField.exitStatus] = termination.exitStatus
        let elapsed = TimeSpan(microseconds: UInt64(max(0, finished.duration(since: started).nanosecondsSaturated / 1_000)))
        fields[JobdField.durationUSec] = String(elapsed.microseconds)
        fields[JobdField.result] = result.rawValue
        if leftovers > 0 { fields[JobdField.leftovers] = String(leftovers) }
        if let reason { fields[JobdField.reason] = reason.rawValue }
        if let pid { fields[JobdField.pid] = String(pid) }
        if let usage { fields.merge(usage.fields) { $1 } }
        logger.event(.runExit, level: result.isFailure ? .warning : .info,
                     "run \(runID) of \(definition.name) \(termination) after \(elapsed): \(result.rawValue)"
                        + (reason.map { " (stopped: \($0.rawValue))" } ?? "") + (usage.map { ". \($0.summary)" } ?? ""), fields)
        return RunOutcome(runID: runID, invocationID: invocationID, job: definition.name, pid: pid, termination: termination,
                          started: started, finished: finished, result: result, stopReason: reason)
    }

    /// The first reason jobd gave for stopping a run, if any.
    private final class StopRecord: Sendable {
        private let state = LockedBox<StopReason?>(nil)
        var reason: StopReason? { state.withLock { $0 } }
        func record(_ reason: StopReason) { state.withLock { $0 = $0 ?? reason } }
    }

    /// What a run's process is started with, resolved now: the account and environment files are
    /// read at each start, as systemd reads them, so a changed file needs no reload.
    struct SpawnConfiguration: Sendable {
        var argv: [String]
        var environment: [String: String]
        var workingDirectory: FilePath
        var account: Account?
        /// The run's own cgroup, which `jobd-cgexec` enters before the command runs.
        var cgroup: RunCgroup?
    }

    /// Why a run could not be prepared; it is logged and the run counts as failed to start.
    struct PreparationError: Error, CustomStringConvertible {
        var description: String
    }

    /// ``prepare(_:runID:invocationID:context:)``, on a thread of its own where it may block:
    /// `User=` and `Group=` are looked up through NSS (which may ask LDAP or sssd), and
    /// `EnvironmentFile=` and an optional `WorkingDirectory=` touch file systems (which may be
    /// remote). A hung look-up then holds its own run alone, never one of the few threads (one per
    /// core) of Swift's concurrency pool that jobd's main loop and every run share.
    private func prepareAside(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, context: [String: String]
    ) async -> Result<SpawnConfiguration, PreparationError> {
        let mayBlock = definition.user != nil || definition.group != nil || !definition.environmentFiles.isEmpty
            || definition.workingDirectory?.optional == true
        guard mayBlock else { return prepare(definition, runID: runID, invocationID: invocationID, context: context) }
        return await withCheckedContinuation { continuation in
            do {
                try DetachedThread.start {
                    continuation.resume(returning: prepare(definition, runID: runID, invocationID: invocationID, context: context))
                }
            } catch {
                continuation.resume(returning: .failure(PreparationError(description: String(describing: error))))
            }
        }
    }

    private func prepare(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, context: [String: String]
    ) -> Result<SpawnConfiguration, PreparationError> {
        let account: Account?
        if let slowAccountLookUp, definition.user != nil || definition.group != nil {
            usleep(UInt32(min(slowAccountLookUp, 600) * 1_000_000))
        }
        do {
            account = try Account.resolve(user: definition.user, group: definition.group)
        } catch {
            return .failure(PreparationError(description: error.description))
        }
        var files: [EnvironmentVariable] = []
        for file in definition.environmentFiles {
            switch file.read() {
            case .failure(let error):
                return .failure(PreparationError(description: error.description))
            case .success(let contents):
                files += contents.variables
                for skipped in contents.skipped {
                    logger.warning("\(definition.name): \(skipped.description)", metadata: [JobdField.job: .string(definition.name)])
                }
            }
        }
        let environment = environment(
            for: definition, account: account, files: files, runID: runID, invocationID: invocationID, context: context)
        // As systemd: `/` unless the job names a directory; an optional one that is missing also means `/`.
        var workingDirectory = FilePath("/")
        if let directory = definition.workingDirectory, !directory.optional || Self.isDirectory(directory.path) {
            workingDirectory = FilePath(directory.path)
        }
        return .success(SpawnConfiguration(
            argv: definition.command.argv(environment: environment), environment: environment,
            workingDirectory: workingDirectory, account: account))
    }

    /// Starts the process, forwards its output, and waits until it has been reaped.
    private func spawn(
        _ configuration: SpawnConfiguration, definition: JobDefinition, runID: UInt64, fields: [String: String]
    ) async -> (RunTermination, pid_t?) {
        var argv = configuration.argv
        if let account = configuration.account { argv = Self.setpriv(account) + argv }
        if let cgroup = configuration.cgroup, case .cgroups(let delegated) = tracking {
            // The trampoline execs what it is given, so a command that is not there must be found
            // missing here, to be a failed start as without it (setpriv, for User=, finds its own).
            if configuration.account == nil, let missing = Self.missingExecutable(argv[0], path: configuration.environment["PATH"]) {
                return (.failedToStart(missing), nil)
            }
            argv = [delegated.trampoline, cgroup.directory] + argv
        }
        let executable: Executable = argv[0].hasPrefix("/") ? .path(FilePath(argv[0])) : .name(argv[0])
        var options = PlatformOptions()
        options.createSession = true
        let environment = Dictionary(uniqueKeysWithValues: configuration.environment.map {
            (Environment.Key(rawValue: $0.key)!, $0.value)
        })
        let pidBox = LockedBox<pid_t?>(nil)
        do {
            let result = try await Subprocess.run(
                executable, arguments: Arguments(Array(argv.dropFirst())), environment: .custom(environment),
                workingDirectory: configuration.workingDirectory, platformOptions: options,
                input: .none, output: .sequence, error: .sequence
            ) { execution in
                let pid = execution.processIdentifier.value
                pidBox.withLock { $0 = pid }
                registry.started(runID: runID, pid: pid, cgroup: configuration.cgroup)
                logger.event(.runStart, "run \(runID) of \(definition.name) started: \(definition.command.text)",
                             fields.merging([JobdField.pid: String(pid)]) { $1 })
                let standardOutput = execution.standardOutput
                let standardError = execution.standardError
                let runner = self
                await withTaskGroup(of: Void.self) { group in
                    // Output carries the job's name and the command's pid, so that `journalctl -t JOB`
                    // finds it and it reads `backup[4242]: …`.
                    let outputFields = fields.merging([JobdField.pid: String(pid)]) { $1 }
                    group.addTask { await runner.forward(standardOutput, runID: runID, level: .info, fields: outputFields) }
                    group.addTask { await runner.forward(standardError, runID: runID, level: .error, fields: outputFields) }
                }
            }
            let pid = pidBox.withLock { $0 }
            switch result.terminationStatus {
            case .exited(let status): return (.exited(status), pid)
            case .signaled(let signal): return (.signaled(signal), pid)
            }
        } catch {
            return (.failedToStart(String(describing: error)), nil)
        }
    }

    /// Each line a run writes becomes its own `run.output` entry: priority 6 for stdout (info), 3
    /// for stderr (error), with the job and run. The pipe is read only as fast as lines are
    /// logged, so a job that writes without end cannot grow jobd's memory.
    private func forward(_ output: SubprocessOutputSequence, runID: UInt64, level: Logger.Level, fields: [String: String]) async {
        var splitter = OutputLineSplitter()
        let taps = outputTaps
        let emit = { (line: String) in
            logger.event(.runOutput, level: level, line, fields)
            taps.deliver(runID: runID, line: line, standardOutput: level == .info)
        }
        do {
            for try await buffer in output {
                buffer.withUnsafeBytes { splitter.append($0, emit: emit) }
            }
        } catch {
            // The pipe failed; the exit status still tells how the run ended.
        }
        splitter.finish(emit: emit)
    }

    /// util-linux's `setpriv`, which every Debian system has (util-linux is Essential).
    static let setprivPath = "/usr/bin/setpriv"

    /// The words that make a run switch to `account` before its command: `setpriv` sets the real,
    /// effective and saved ids and the groups, then execs the command in the same process.
    ///
    /// Why not swift-subprocess's `userID`/`groupID`: those take its fork path, whose child calls
    /// functions that are not async-signal-safe after a raw `clone3` (swift-subprocess issue #374),
    /// and glibc's `setuid` in such a child waits on locks other threads of jobd may have held;
    /// runs hung there now and then. With `setpriv`, jobd spawns through `posix_spawn` as for any
    /// other run, and the switch happens in a single-threaded process.
    static func setpriv(_ account: Account) -> [String] {
        var words = [setprivPath]
        if account.userName != nil { words.append("--reuid=\(account.uid)") }
        words.append("--regid=\(account.gid)")
        if let groups = account.supplementaryGroups {
            words.append("--groups=" + groups.map(String.init).joined(separator: ","))
        } else {
            words.append("--keep-groups")
        }
        return words + ["--"]
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}

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
    /// Each user's budget of journal lines for their own jobs' output.
    package let outputBudget = OutputBudget()
    /// The one thread that reads every run's output and sees its process end (issue 39).
    let reactor = RunReactor()
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
    /// to each of its journal entries. A fleet run's `fence` is watched by its supervisor (``RunFence``).
    /// Returns how it ended, and the mail its output is to go out as (`MailTo=`), to be sent after
    /// the run is reported (``mail(_:sendmail:)``).
    package func run(
        _ definition: JobDefinition, runID: UInt64, invocationID: String,
        context: [String: String] = [:], fields extraFields: [String: String] = [:], fence: RunFence? = nil
    ) async -> (outcome: RunOutcome, mail: RunMail?) {
        let started = MonotonicInstant.now()
        var fields = extraFields.merging([
            JobdField.job: definition.name, JobdField.run: String(runID), JobdField.runID: invocationID,
        ]) { $1 }
        let stopRequests = registry.add(runID: runID, job: definition.name)
        let stopReason = StopRecord()
        var termination: RunTermination
        var pid: pid_t?
        var cgroup: RunCgroup?
        var account: Account?
        var privateTmp: PrivateTmp?
        // What the run writes, kept for MailTo= (cron's MAILTO) only.
        let mailed = definition.mailTo.isEmpty ? nil : MailedOutput()
        // An Assert…= that does not hold fails the run before anything of it starts (result `assert`).
        let failedAssertion = UnitCondition.failing(definition.conditions, assertions: true, on: SystemConditionFacts())
        prepared: switch failedAssertion == nil
            ? await prepareAside(definition, runID: runID, invocationID: invocationID, context: context)
            : .failure(PreparationError(description: "\(failedAssertion!) does not hold")) {
        case .failure(let reason):
            termination = .failedToStart(reason.description)
        case .success(var configuration):
            account = configuration.account
            switch makeCgroup(definition, runID: runID, invocationID: invocationID, fields: fields, user: configuration.account?.uid) {
            case .failure(let reason):
                termination = .failedToStart(reason.description)
                break prepared
            case .success(let made):
                cgroup = made
            }
            configuration.cgroup = cgroup
            if let limit = userTasksRlimit(definition, cgroup: cgroup) { configuration.attributes.limits[.nproc] = limit }
            configuration.fence = fence.map { ($0, definition.stopTimeout) }
            if let cgroup { fields[JobdField.cgroup] = cgroup.path }
            var refused: String?
            if definition.sandbox.privateTmp {
                switch PrivateTmp.make(job: definition.name) {
                case .success(let made): configuration.privateTmp = made; privateTmp = made
                case .failure(let reason): refused = reason.description
                }
            }
            if let refused {
                termination = .failedToStart(refused)
            } else {
                let startFields = fields
                let watched = cgroup
                (termination, pid) = await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        await watch(definition, runID: runID, cgroup: watched, fields: startFields, requests: stopRequests) { stopReason.record($0) }
                    }
                    defer { group.cancelAll() }
                    return await spawn(configuration, definition: definition, runID: runID, fields: startFields, mailed: mailed)
                }
            }
        }
        let fencedEnd = pid == nil ? nil : fenceStop(of: definition, runID: runID, fence: fence, stopReason: stopReason, fields: fields)
        // Whether preparing it or spawning it failed, the reason is logged as the run's start.
        if case .failedToStart(let reason) = termination {
            logger.event(.runStart, level: .error, "run \(runID) of \(definition.name) could not start: \(reason)", fields)
        }
        // What the run left behind in its process group or cgroup is stopped before the run ends
        // (and before it leaves the registry, so that a stop of jobd still reaches it).
        var leftovers = 0
        if let pid { leftovers = await stopLeftovers(of: definition, group: pid, cgroup: cgroup, fields: fields) }
        // A run that never started has its cgroup removed, and no usage to report.
        let finished = cgroup.map { finish($0, keep: leftovers > 0 && definition.killMode != .controlGroup) }
        let usage = pid == nil ? nil : finished?.usage
        // PrivateTmp='s directories go with the run, unless processes it left are kept (KillMode=process).
        if let privateTmp, leftovers == 0 || definition.killMode == .controlGroup, let failure = await privateTmp.remove() {
            logger.warning("\(definition.name): PrivateTmp='s directories \(privateTmp.tmp) and \(privateTmp.varTmp) are not removed: \(failure)",
                           metadata: [JobdField.job: .string(definition.name)])
        }
        // Only now is the process reaped; until then a stop must still be able to signal it.
        registry.remove(runID: runID)
        let ended = MonotonicInstant.now()
        let reason = stopReason.reason
        let result = failedAssertion != nil ? .assert
            : RunOutcome.result(of: termination, stopReason: reason, ignoresFailure: definition.command.ignoresFailure,
                                success: definition.successExitStatus, oomKilled: (finished?.oomKills ?? 0) > 0)
        fields[JobdField.exitCode] = termination.exitCode
        fields[JobdField.exitStatus] = termination.exitStatus
        let elapsed = TimeSpan(microseconds: UInt64(max(0, ended.duration(since: started).nanosecondsSaturated / 1_000)))
        fields[JobdField.durationUSec] = String(elapsed.microseconds)
        fields[JobdField.result] = result.rawValue
        if leftovers > 0 { fields[JobdField.leftovers] = String(leftovers) }
        if let reason { fields[JobdField.reason] = reason.rawValue }
        if let pid { fields[JobdField.pid] = String(pid) }
        if let usage { fields.merge(usage.fields) { $1 } }
        logger.event(.runExit, level: result.isFailure ? .warning : .info,
                     "run \(runID) of \(definition.name) \(termination) after \(elapsed.description(accuracy: TimeSpan(microseconds: 1_000))): \(result.rawValue)"
                        + (reason.map { " (stopped: \($0.rawValue))" } ?? "") + (usage.map { ". \($0.summary)" } ?? ""), fields)
        let outcome = RunOutcome(runID: runID, invocationID: invocationID, job: definition.name, termination: termination, result: result,
                                 duration: elapsed, stopReason: reason, fencedEnd: fencedEnd)
        return (outcome, mailed.flatMap { RunMail.due(definition, result: result, output: $0, account: account, fields: fields) })
    }

    /// When a run's fence stopped it (its node lost the lease): the run then ends `lost`, at the time
    /// it really ended, which this returns; `nil` when it did not.
    private func fenceStop(
        of definition: JobDefinition, runID: UInt64, fence: RunFence?, stopReason: StopRecord, fields: [String: String]
    ) -> Int64? {
        guard let fence, let stopped = fence.stopped() else { return nil }
        stopReason.record(.leaseLost)
        logger.event(.runStop, level: .warning,
                     "run \(runID) of \(definition.name) was stopped by its fence: this node no longer held its fleet lease",
                     fields.merging([JobdField.reason: StopReason.leaseLost.rawValue]) { $1 })
        return stopped.ended
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
        /// Where a run that keeps jobd's uid starts, resolved by jobd (`/` for a missing optional one).
        var workingDirectory: FilePath
        /// `WorkingDirectory=` of a run that switches to its `User=`: the trampoline changes to it as the user.
        var userDirectory: WorkingDirectory?
        var account: Account?
        /// The run's own cgroup, which `jobd-cgexec` enters before the command runs.
        var cgroup: RunCgroup?
        /// `Nice=`, `UMask=`, `Limit…=`…: given by `jobd-cgexec` before it switches credentials.
        var attributes = ProcessAttributes()
        /// A fleet run's fence and its `TimeoutStopSec=`: `jobd-cgexec` stays as its supervisor.
        var fence: (RunFence, stopTimeout: TimeSpan)?
        /// `ProtectSystem=`, `SystemCallFilter=`…: applied by `jobd-cgexec` (issue 27).
        var sandbox = Sandbox()
        /// The directories of `PrivateTmp=`, made for this run.
        var privateTmp: PrivateTmp?
        /// A user's own job (``JobDefinition/owningUser``): its sandbox's paths are looked up as the user.
        var ownedByUser = false
    }

    /// Why a run could not be prepared; it is logged and the run counts as failed to start.
    struct PreparationError: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `body` on a thread of its own where it may block: `User=` and `Group=` are looked up
    /// through NSS (which may ask LDAP or sssd), and `EnvironmentFile=` and an optional
    /// `WorkingDirectory=` touch file systems (which may be remote). A hung look-up then holds its
    /// own run alone, never one of the few threads (one per core) of Swift's concurrency pool that
    /// jobd's main loop and every run share.
    static func aside<Value: Sendable>(
        _ body: @escaping @Sendable () -> Result<Value, PreparationError>
    ) async -> Result<Value, PreparationError> {
        await withCheckedContinuation { continuation in
            do {
                try DetachedThread.start { continuation.resume(returning: body()) }
            } catch {
                continuation.resume(returning: .failure(PreparationError(description: String(describing: error))))
            }
        }
    }

    /// The account, the environment files, the environment and the working directory of a run.
    private func prepareAside(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, context: [String: String]
    ) async -> Result<SpawnConfiguration, PreparationError> {
        let lookUp = { @Sendable () -> Result<Account?, PreparationError> in resolveAccount(definition) }
        let needsAccount = definition.user != nil || definition.group != nil || !definition.supplementaryGroups.isEmpty
        let account: Account?
        switch needsAccount ? await Self.aside(lookUp) : .success(nil) {
        case .failure(let error): return .failure(error)
        case .success(let resolved): account = resolved
        }
        let switchesUser = account?.userName != nil
        // A User= job's files are read as its user, by the trampoline; others' by jobd, as root.
        let read: Result<[EnvironmentVariable], PreparationError>
        if definition.environmentFiles.isEmpty {
            read = .success([])
        } else if let account, switchesUser {
            read = await readAsUser(definition, account: account)
        } else {
            read = await Self.aside { readEnvironmentFiles(definition) }
        }
        let files: [EnvironmentVariable]
        switch read {
        case .failure(let error): return .failure(error)
        case .success(let variables): files = variables
        }
        let environment = environment(
            for: definition, account: account, files: files, runID: runID, invocationID: invocationID, context: context)
        // As systemd: `/` unless the job names a directory; an optional one that is missing also
        // means `/`. A User= run's is looked at only by the trampoline, as the user.
        var workingDirectory = FilePath("/")
        var named = definition.workingDirectory
        if let directory = named, directory.path == WorkingDirectory.home {
            let home = account?.home ?? getpwuid(geteuid()).map { String(decoding: UnsafeRawBufferPointer(start: $0.pointee.pw_dir, count: strlen($0.pointee.pw_dir)), as: UTF8.self) }
            guard let resolved = directory.resolved(home: home) else {
                return .failure(PreparationError(description: "WorkingDirectory=~: the run's user has no home directory"))
            }
            named = resolved
        }
        if !switchesUser, let directory = named {
            if !directory.optional {
                workingDirectory = FilePath(directory.path)
            } else if case .success(true) = await Self.aside({ .success(Self.isDirectory(directory.path)) }) {
                workingDirectory = FilePath(directory.path)
            }
        }
        return .success(SpawnConfiguration(
            argv: definition.command.argv(environment: environment), environment: environment,
            workingDirectory: workingDirectory, userDirectory: switchesUser ? named : nil,
            account: account, attributes: definition.processAttributes, sandbox: definition.sandbox,
            ownedByUser: definition.owningUser != nil))
    }

    func resolveAccount(_ definition: JobDefinition) -> Result<Account?, PreparationError> {
        if let slowAccountLookUp { usleep(UInt32(min(slowAccountLookUp, 600) * 1_000_000)) }
        do {
            return .success(try Account.resolve(user: definition.user, group: definition.group, supplementary: definition.supplementaryGroups))
        } catch {
            return .failure(PreparationError(description: error.description))
        }
    }

    /// The `EnvironmentFile=`s of a job that keeps jobd's uid, read by jobd.
    private func readEnvironmentFiles(_ definition: JobDefinition) -> Result<[EnvironmentVariable], PreparationError> {
        parse(definition.environmentFiles.map { $0.read() }, of: definition)
    }

    /// The `EnvironmentFile=`s of a `User=` job, read by the trampoline with the user's uid, gid and
    /// groups, so that a file the user cannot read is refused, whatever root could read.
    private func readAsUser(_ definition: JobDefinition, account: Account) async -> Result<[EnvironmentVariable], PreparationError> {
        guard let trampoline = Trampoline.located else { return .failure(PreparationError(description: Trampoline.missing)) }
        let files = definition.environmentFiles
        do {
            let result = try await Subprocess.run(
                .path(FilePath(trampoline)), arguments: Arguments(Trampoline.readOptions(account, files: files)),
                environment: .custom([:]), workingDirectory: FilePath("/"), input: .none,
                output: .bytes(limit: files.count * (EnvironmentFile.sizeLimit + 64)), error: .string(limit: 4_096))
            guard result.terminationStatus == .exited(0),
                  let reads = Trampoline.decodeReads(result.standardOutput, count: files.count) else {
                let reason = result.standardError.split(separator: "\n").last.map(String.init) ?? "jobd-cgexec \(result.terminationStatus)"
                return .failure(PreparationError(description: "EnvironmentFile=: cannot read the files as user \(account.userName ?? ""): \(reason)"))
            }
            return parse(zip(files, reads).map { $0.contents(of: $1) }, of: definition)
        } catch {
            return .failure(PreparationError(description: "EnvironmentFile=: cannot read the files as user \(account.userName ?? ""): \(error)"))
        }
    }

    /// The variables of the files in order, the skipped lines logged; the first file that failed, if one did.
    private func parse(_ reads: [Result<EnvironmentFile.Contents, ConfigError>], of definition: JobDefinition) -> Result<[EnvironmentVariable], PreparationError> {
        var files: [EnvironmentVariable] = []
        for read in reads {
            switch read {
            case .failure(let error):
                return .failure(PreparationError(description: error.description))
            case .success(let contents):
                files += contents.variables
                for skipped in contents.skipped {
                    logger.warning("\(definition.name): \(skipped.description)", metadata: [JobdField.job: .string(definition.name)])
                }
            }
        }
        return .success(files)
    }

    /// How a run is started: its command directly (a job that keeps jobd's credentials and has no
    /// cgroup), or through the trampoline with an empty environment, the job's on `handshake`.
    /// A run started directly keeps jobd's session keyring and glibc's signals 32 and 33 ignored,
    /// which the trampoline would reset; it is spawned directly all the same, because the
    /// trampoline's start and handshake cut the runs benchmark from 958 to 382 runs a second
    /// (2026-11-26): it is a root job outside jobd's unit, sharing nothing across an account.
    private struct Launch {
        var executable: Executable
        var arguments: [String]
        var environment: [String: String]
        var workingDirectory: FilePath
        /// jobd's end of the trampoline's stdin: the job's environment goes in, a failure before the
        /// command comes back, and the end of file says the command was executed.
        var handshake: Int32?
        var input: Int32

        init(_ configuration: SpawnConfiguration) throws(PreparationError) {
            let argv = configuration.argv
            guard configuration.account != nil || configuration.cgroup != nil || !configuration.attributes.isDefault
                    || configuration.fence != nil || !configuration.sandbox.isDefault else {
                // The job's environment reaches only its own command, which runs as jobd does.
                executable = argv[0].hasPrefix("/") ? .path(FilePath(argv[0])) : .name(argv[0])
                arguments = Array(argv.dropFirst())
                environment = configuration.environment
                workingDirectory = configuration.workingDirectory
                input = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard input >= 0 else { throw PreparationError(description: "cannot open /dev/null: \(String(cString: strerror(errno)))") }
                return
            }
            guard let trampoline = Trampoline.located else { throw PreparationError(description: Trampoline.missing) }
            executable = .path(FilePath(trampoline))
            arguments = Trampoline.options(cgroup: configuration.cgroup, attributes: configuration.attributes,
                                           sandbox: configuration.sandbox.trampolineOptions(privateTmp: configuration.privateTmp?.mounted,
                                                                                            userPaths: configuration.ownedByUser),
                                           account: configuration.account,
                                           directory: configuration.userDirectory, fence: configuration.fence) + argv
            // Nothing of the job's before its own execve: jobd-cgexec needs no variable at all.
            environment = [:]
            workingDirectory = configuration.userDirectory == nil ? configuration.workingDirectory : FilePath("/")
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                throw PreparationError(description: "cannot make the trampoline's socket pair: \(String(cString: strerror(errno)))")
            }
            handshake = pair[0]
            input = pair[1]
        }
    }

    /// Sends the job's environment to the trampoline and waits for its answer: nil once the
    /// command was executed, or why it was not. On a thread of its own: the trampoline may wait
    /// on a slow file system (its working directory) before it answers.
    private static func handshake(_ socket: Int32, environment: [String: String]) async -> String? {
        let bytes = Trampoline.encode(environment)
        let answer = await aside { () -> Result<String?, PreparationError> in
            defer { close(socket) }
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }  // it stopped reading: its answer says why
                sent += count
            }
            shutdown(socket, Int32(SHUT_WR))
            var reply: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while reply.count < 65_536 {
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                reply += buffer.prefix(count)
            }
            if reply.isEmpty && sent < bytes.count { return .success("jobd-cgexec did not take the job's environment") }
            return .success(reply.isEmpty ? nil : String(decoding: reply, as: UTF8.self))
        }
        switch answer {
        case .success(let reason):
            return reason
        case .failure(let error):
            // No thread: the trampoline reads a stream cut short, and refuses to run the command.
            close(socket)
            return error.description
        }
    }

    /// Starts the process, forwards its output, and waits until it has been reaped.
    private func spawn(
        _ configuration: SpawnConfiguration, definition: JobDefinition, runID: UInt64, fields: [String: String], mailed: MailedOutput?
    ) async -> (RunTermination, pid_t?) {
        let launch: Launch
        do {
            launch = try Launch(configuration)
        } catch {
            return (.failedToStart(error.description), nil)
        }
        if case .failure(let failure) = reactor.prepare() {
            close(launch.input)
            if let socket = launch.handshake { close(socket) }
            return (.failedToStart(failure.description), nil)
        }
        let spawned: ProcessSpawner.Spawned
        switch ProcessSpawner.spawn(launch.executable.description, arguments: launch.arguments, environment: launch.environment,
                                    workingDirectory: launch.workingDirectory.string, input: launch.input) {
        case .failure(let failure):
            if let socket = launch.handshake { close(socket) }
            return (.failedToStart(failure.description), nil)
        case .success(let process):
            spawned = process
        }
        let pid = spawned.pid
        registry.started(runID: runID, pid: pid, cgroup: configuration.cgroup)
        let failure = if let socket = launch.handshake {
            await Self.handshake(socket, environment: configuration.environment)
        } else { String?.none }
        if failure == nil {
            logger.event(.runStart, "run \(runID) of \(definition.name) started: \(definition.command.text)",
                         fields.merging([JobdField.pid: String(pid)]) { $1 })
        }
        // Output carries the job's name (or its SyslogIdentifier=) and the command's pid,
        // so that `journalctl -t JOB` finds it and it reads `backup[4242]: …`.
        var outputFields = fields.merging([JobdField.pid: String(pid)]) { $1 }
        if let identifier = definition.syslogIdentifier { outputFields[JobdField.syslogIdentifier] = identifier }
        let user = definition.owningUser
        let dropped = LockedBox(0)
        let exit = await reactor.follow(spawned) { [outputFields] line, stream in
            forward(line, runID: runID, level: stream == .standardOutput ? .info : .error, fields: outputFields, mailed: mailed,
                    user: user, dropped: dropped)
        }
        let count = dropped.withLock { $0 }
        if count > 0, let user {
            logger.event(.runOutputDropped, level: .warning,
                         "\(count) line(s) of run \(runID) of \(definition.name)'s output were not logged: \(user)'s runs wrote more "
                         + "than UserLogRateLimitBurst= lines in UserLogRateLimitIntervalSec= (jobd.conf)",
                         fields.merging([JobdField.droppedCount: String(count)]) { $1 })
        }
        if let failure { return (.failedToStart(failure), nil) }
        switch exit {
        case .exited(let status): return (.exited(status), pid)
        case .signaled(let signal):
            // A run with LimitCORE= of its own dumps core by its limit, not jobd's.
            let core = configuration.attributes.limits[.core].map { $0.soft ?? .max }
            return (.signaled(signal, coreLimit: core), pid)
        }
    }

    /// Each line a run writes becomes its own `run.output` entry: priority 6 for stdout (info), 3
    /// for stderr (error), with the job and run. ``RunReactor`` reads a pipe only as fast as its
    /// lines are taken here, so a job that writes without end cannot grow jobd's memory.
    private func forward(
        _ line: String, runID: UInt64, level: Logger.Level, fields: [String: String], mailed: MailedOutput?,
        user: String?, dropped: LockedBox<Int>
    ) {
        // A user's line beyond their budget is counted, not logged (``OutputBudget``).
        if let user, !outputBudget.take(user: user) {
            dropped.withLock { $0 += 1 }
        } else {
            logger.event(.runOutput, level: level, line, fields)
        }
        outputTaps.deliver(runID: runID, line: line, standardOutput: level == .info)
        mailed?.append(line)
    }

    // Why the switch of credentials is jobd-cgexec's, not swift-subprocess's `userID`/`groupID`:
    // those take its fork path, whose child calls functions that are not async-signal-safe after a
    // raw `clone3` (swift-subprocess issue #374), and glibc's `setuid` in such a child waits on
    // locks other threads of jobd may have held; runs hung there now and then. With the
    // trampoline, jobd spawns through `posix_spawn` as for any other run, and the switch happens
    // in a single-threaded process.

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}

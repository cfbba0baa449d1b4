import Glibc
import JobdProcess
import JobdSystem
package import JobdConfig
import JobdLocks
import JobdLogging
import Logging

#if canImport(System)
import System
#else
import SystemPackage
#endif

extension SystemRunDriver {
    /// How a run is started: its command directly (a job that keeps jobd's credentials, and whose
    /// cgroup, if it has one, the kernel can start it in), or through the trampoline with no
    /// arguments and an empty environment, its exec plan (with the job's environment) on `handshake`.
    /// A run started directly in its cgroup gets what the trampoline's plan gives such a run: its v1
    /// cgroup twins and a session keyring of its own; one without a cgroup keeps jobd's keyring (a
    /// root job outside jobd's unit, sharing nothing across an account). Every run gets the soft
    /// `RLIMIT_NOFILE` jobd started with (``DescriptorLimit``), unless its job sets `LimitNOFILE=`.
    /// Direct, because the trampoline's second exec and handshake cut the runs benchmark from 958 to
    /// 382 runs a second (2026-11-26).
    private struct Launch {
        /// A path, or a name looked up in the job's `PATH`.
        var executable: String
        var arguments: [String]
        var environment: [String: String]
        var workingDirectory: FilePath
        /// jobd's end of the trampoline's stdin: the exec plan goes in, a failure before the
        /// command comes back, and the end of file says the command was executed.
        var handshake: Int32?
        /// The encoded exec plan, for `handshake`.
        var plan: [UInt8] = []
        var input: Int32
        var setup = ProcessSpawner.Setup()

        init(_ configuration: SpawnConfiguration, descriptorLimit: ResourceLimit?, intoCgroup: Bool) throws(PreparationError) {
            let argv = configuration.argv
            // A User= run enters its WorkingDirectory= after the switch, as the user: it starts in /.
            workingDirectory = configuration.userDirectory == nil ? configuration.workingDirectory : FilePath("/")
            guard (configuration.cgroup != nil && !intoCgroup) || !configuration.attributes.isDefault || configuration.fence != nil
                    || !configuration.sandbox.isDefault else {
                // The job's environment reaches only its own command, which runs as jobd does or,
                // for User=, as its user: the child switches as jobd-cgexec would, and enters the
                // user's working directory as the user. A run as another user always gets a
                // session keyring of its own (it must not possess jobd's).
                executable = argv[0]
                arguments = Array(argv.dropFirst())
                environment = configuration.environment
                let account = configuration.account
                setup = ProcessSpawner.Setup(descriptorLimit: descriptorLimit, cgroup: configuration.cgroup,
                                             keyring: configuration.cgroup != nil || account != nil, credentials: account.map(ExecPlan.Credentials.init),
                                             userDirectory: configuration.userDirectory)
                input = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard input >= 0 else { throw PreparationError(description: "cannot open /dev/null: \(String(cString: strerror(errno)))") }
                return
            }
            guard let trampoline = Trampoline.located else { throw PreparationError(description: Trampoline.missing) }
            executable = trampoline
            arguments = []
            var attributes = configuration.attributes
            if attributes.limits[.nofile] == nil, let descriptorLimit { attributes.limits[.nofile] = descriptorLimit }
            plan = Trampoline.plan(cgroup: configuration.cgroup, attributes: attributes,
                                   sandbox: configuration.sandbox.execSandbox(privateTmp: configuration.privateTmp?.mounted,
                                                                              userPaths: configuration.ownedByUser),
                                   account: configuration.account, directory: configuration.userDirectory, fence: configuration.fence,
                                   environment: configuration.environment, argv: argv).encoded()
            // Nothing of the job's before its own execve: jobd-cgexec needs no variable at all.
            environment = [:]
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                throw PreparationError(description: "cannot make the trampoline's socket pair: \(String(cString: strerror(errno)))")
            }
            handshake = pair[0]
            input = pair[1]
        }
    }

    /// Starts the run's process, directly or through the trampoline (``Launch``); where the kernel
    /// turns out unable to start a process in a cgroup, once through the trampoline, as every later run.
    private func start(_ configuration: SpawnConfiguration) -> Result<(ProcessSpawner.Spawned, Launch), PreparationError> {
        while true {
            let launch: Launch
            do {
                launch = try Launch(configuration, descriptorLimit: descriptorLimit, intoCgroup: cgroupSpawn.isAvailable)
            } catch {
                return .failure(error)
            }
            switch ProcessSpawner.spawn(launch.executable, arguments: launch.arguments, environment: launch.environment,
                                        workingDirectory: launch.workingDirectory.string, input: launch.input, setup: launch.setup) {
            case .failure(let failure) where failure.cloneIntoCgroupUnsupported:
                if cgroupSpawn.refuse(failure.description) {
                    logger.warning("runs enter their cgroups through jobd-cgexec: \(failure.description)")
                }
            case .failure(let failure):
                if let socket = launch.handshake { close(socket) }
                return .failure(PreparationError(description: failure.description))
            case .success(let process):
                return .success((process, launch))
            }
        }
    }

    /// Sends the exec plan to the trampoline and calls `answered` with its answer: nil once the
    /// command was executed, or why it was not. The plan goes at once, without waiting, as the
    /// socket's buffer holds it, and the reactor's thread awaits the answer (the trampoline may wait
    /// on a slow file system, its working directory, before it answers). What the buffer does not
    /// hold of a plan (a large `Environment=`) goes from a thread of its own, blocking; the reactor
    /// awaits the answer then.
    private static func handshake(_ socket: Int32, plan bytes: [UInt8], reactor: RunReactor, answered: @escaping @Sendable (String?) -> Void) {
        let sent = bytes.withUnsafeBytes { plan in
            retryingOnInterrupt { send(socket, plan.baseAddress, plan.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
        let awaitAnswer = { @Sendable (planTaken: Bool) in
            shutdown(socket, Int32(SHUT_WR))
            reactor.awaitAnswer(on: socket) { reply in
                guard reply.isEmpty else { return answered(String(decoding: reply, as: UTF8.self)) }
                answered(planTaken ? nil : "jobd-cgexec did not take the run's exec plan")
            }
        }
        if sent == bytes.count { return awaitAnswer(true) }
        let rest = Array(bytes[max(sent, 0)...])
        do {
            try DetachedThread.start { awaitAnswer(sendBlocking(rest, on: socket)) }
        } catch {
            // No thread: the trampoline reads a stream cut short, and refuses to run the command.
            close(socket)
            answered(String(describing: error))
        }
    }

    /// The rest of a plan, blocking; whether all of it went (the trampoline may stop reading: its
    /// answer says why).
    private static func sendBlocking(_ bytes: [UInt8], on socket: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { rest in
                retryingOnInterrupt { send(socket, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL)) }
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Starts the process and returns; its start (after the trampoline's handshake, if any) and its
    /// end are reported through `reports`, its output forwarded in between.
    package func spawn(
        _ configuration: SpawnConfiguration, definition: JobDefinition, runID: UInt64, fields: [String: String],
        mailed: (@Sendable (String) -> Void)?, reports: RunProcessReports
    ) {
        if case .failure(let failure) = reactor.prepare() { return reports.ended(.failure(PreparationError(description: failure.description))) }
        if case .failure(let failure) = timers.prepare() { return reports.ended(.failure(failure)) }
        let spawned: ProcessSpawner.Spawned
        let launch: Launch
        switch start(configuration) {
        case .failure(let failure): return reports.ended(.failure(failure))
        case .success(let started): (spawned, launch) = started
        }
        registry.started(runID: runID, pid: spawned.pid, cgroup: configuration.cgroup)
        // A run with LimitCORE= of its own dumps core by its limit, not jobd's.
        let core = configuration.attributes.limits[.core].map { $0.soft ?? .max }
        let follow: @Sendable (String?) -> Void = { [self] failure in
            self.follow(spawned, definition: definition, runID: runID, fields: fields, mailed: mailed) { exit in
                if let failure { return reports.ended(.failure(PreparationError(description: failure))) }
                switch exit {
                case .exited(let status): reports.ended(.success(.exited(status)))
                case .signaled(let signal): reports.ended(.success(.signaled(signal, coreLimit: core)))
                }
            }
        }
        let answered: @Sendable (String?) -> Void = { failure in
            guard failure == nil else { return follow(failure) }
            reports.started(spawned.pid) { follow(nil) }
        }
        if let socket = launch.handshake {
            Self.handshake(socket, plan: launch.plan, reactor: reactor, answered: answered)
        } else {
            answered(nil)
        }
    }

    /// Follows the run's process on the reactor until it has ended, each line it writes forwarded,
    /// then calls `done` (on the reactor's thread). Output carries the job's name (or its
    /// SyslogIdentifier=) and the command's pid, so that `journalctl -t JOB` finds it and it reads
    /// `backup[4242]: …`.
    func follow(
        _ spawned: ProcessSpawner.Spawned, definition: JobDefinition, runID: UInt64, fields: [String: String],
        mailed: (@Sendable (String) -> Void)?, pending: (output: [UInt8], error: [UInt8]) = ([], []),
        done: @escaping @Sendable (RunReactor.Exit) -> Void
    ) {
        var outputFields = fields.merging([JobdField.pid: String(spawned.pid)]) { $1 }
        if let identifier = definition.syslogIdentifier { outputFields[JobdField.syslogIdentifier] = identifier }
        let (user, uid) = (definition.owningUser, definition.owningUID)
        let dropped = LockedBox(0)
        let (logger, name) = (logger, definition.name)
        reactor.follow(spawned, runID: runID, pending: pending, line: { [outputFields, self] line, stream in
            forward(line, runID: runID, level: stream == .standardOutput ? .info : .error, fields: outputFields, mailed: mailed,
                    uid: uid, dropped: dropped)
        }, done: { exit in
            let count = dropped.withLock { $0 }
            if count > 0, let user = user ?? uid.map({ "uid \($0)" }) {
                logger.event(.runOutputDropped, level: .warning,
                             "\(count) line(s) of run \(runID) of \(name)'s output were not logged: \(user)'s runs wrote more "
                             + "than UserLogRateLimitBurst= lines in UserLogRateLimitIntervalSec= (jobd.conf)",
                             fields.merging([JobdField.droppedCount: String(count)]) { $1 })
            }
            done(exit)
        })
    }

    /// Each line a run writes becomes its own `run.output` entry: priority 6 for stdout (info), 3
    /// for stderr (error), with the job and run. ``RunReactor`` reads a pipe only as fast as its
    /// lines are taken here, so a job that writes without end cannot grow jobd's memory.
    private func forward(
        _ line: String, runID: UInt64, level: Logger.Level, fields: [String: String], mailed: (@Sendable (String) -> Void)?,
        uid: uid_t?, dropped: LockedBox<Int>
    ) {
        // A user's line beyond their budget is counted, not logged (``OutputBudget``).
        if let uid, !outputBudget.take(uid: uid) {
            dropped.withLock { $0 += 1 }
        } else {
            logger.event(.runOutput, level: level, line, fields)
        }
        outputTaps.deliver(runID: runID, line: line, standardOutput: level == .info)
        mailed?(line)
    }

    // Why the switch of credentials is jobd-cgexec's or jobd_spawn's, not swift-subprocess's
    // `userID`/`groupID`: those take its fork path, whose child calls functions that are not
    // async-signal-safe after a raw `clone3` (swift-subprocess issue #374), and glibc's `setuid` in
    // such a child waits on locks other threads of jobd may have held; runs hung there now and
    // then. jobd_spawn's child switches with the raw system calls, which change only itself.
}

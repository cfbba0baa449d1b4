import Glibc
import JobdProcess
package import JobdConfig
import JobdLocks
import JobdLogging
package import JobdTimers
package import Logging

#if canImport(System)
import System
#else
import SystemPackage
#endif

/// The system's ``RunDriver``: NSS, `EnvironmentFile=`s, cgroups, `PrivateTmp=`'s directories and
/// processes, as jobd runs them.
package struct SystemRunDriver: RunDriver {
    package typealias PreparationError = RunPreparationError

    let logger: Logger
    private let inheritedLanguage: String?
    let registry: RunRegistry
    let outputTaps: RunOutputTaps
    let outputBudget: OutputBudget
    /// The one thread that reads every run's output and sees its process end (issue 39).
    let reactor = RunReactor()
    /// The one timer thread of every run's `RuntimeMaxSec=` and `TimeoutStopSec=`.
    let timers = RunTimers()
    let tracking: RunTracking
    package let host: any HostFacts
    /// Every run's `RLIMIT_NOFILE` (``DescriptorLimit/runs``), or `nil`: jobd's own.
    let descriptorLimit: ResourceLimit?
    /// Whether a run that needs only its cgroup starts in it without the trampoline.
    let cgroupSpawn = CgroupSpawn()
    /// Called on the look-up's own thread before each `User=`/`Group=` look-up: where a test makes
    /// it as slow as a hung LDAP server or sssd would.
    private let beforeAccountLookUp: (@Sendable () -> Void)?

    package init(
        logger: Logger, environment: [String: String], host: any HostFacts, registry: RunRegistry, outputTaps: RunOutputTaps,
        outputBudget: OutputBudget, tracking: RunTracking, descriptorLimit: ResourceLimit? = nil,
        beforeAccountLookUp: (@Sendable () -> Void)? = nil
    ) {
        self.descriptorLimit = descriptorLimit
        (self.logger, self.host, self.registry, self.tracking) = (logger, host, registry, tracking)
        (self.outputTaps, self.outputBudget) = (outputTaps, outputBudget)
        inheritedLanguage = environment["LANG"]
        self.beforeAccountLookUp = beforeAccountLookUp
    }

    package func now() -> MonotonicInstant { .now() }

    package func schedule(after duration: TimeSpan, _ fire: @escaping @Sendable () -> Void) -> RunDriverWatch {
        timers.schedule(after: duration, fire)
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

    /// The account of a run, looked up on a thread of its own.
    package func resolveAccount(_ definition: JobDefinition) async -> Result<Account?, PreparationError> {
        await Self.aside { [self] in lookUpAccount(definition) }
    }

    /// The environment files, the environment and the working directory of a run. Only the waits
    /// are here; the rest is worked out in synchronous functions, so that the run's task does not
    /// keep their locals' room in its async frames while its process runs (issue 39).
    package func prepare(
        _ definition: JobDefinition, account: Account?, runID: UInt64, invocationID: String, context: [String: String]
    ) async -> Result<SpawnConfiguration, PreparationError> {
        let switchesUser = account?.userName != nil
        // A User= job's files are read as its user, by the trampoline; others' by jobd, as root.
        var files: [EnvironmentVariable] = []
        if !definition.environmentFiles.isEmpty {
            let read = if let account, switchesUser {
                await readAsUser(definition, account: account)
            } else {
                await Self.aside { readEnvironmentFiles(definition) }
            }
            switch read {
            case .failure(let error): return .failure(error)
            case .success(let variables): files = variables
            }
        }
        let named: WorkingDirectory?
        switch namedDirectory(definition, account: account) { case .failure(let error): return .failure(error); case .success(let directory): named = directory }
        // An optional one that is missing means `/`; a User= run's is looked at only by the trampoline, as the user.
        var exists = false
        if !switchesUser, named?.optional == true, case .success(true) = await Self.aside({ .success(Self.isDirectory(named?.path ?? "/")) }) { exists = true }
        return .success(configuration(definition, account: account, files: files, named: named, optionalExists: exists, runID: runID,
                                      invocationID: invocationID, context: context))
    }

    /// The job's `WorkingDirectory=`, `~` resolved to the run's home.
    private func namedDirectory(_ definition: JobDefinition, account: Account?) -> Result<WorkingDirectory?, PreparationError> {
        guard let directory = definition.workingDirectory, directory.path == WorkingDirectory.home else { return .success(definition.workingDirectory) }
        let home = account?.home ?? getpwuid(host.effectiveUID).map { String(decoding: UnsafeRawBufferPointer(start: $0.pointee.pw_dir, count: strlen($0.pointee.pw_dir)), as: UTF8.self) }
        return directory.resolved(home: home).map { .success($0) }
            ?? .failure(PreparationError(description: "WorkingDirectory=~: the run's user has no home directory"))
    }

    /// The run's spawn configuration: as systemd, `/` unless the job names a directory (an
    /// optional one only if it exists, `optionalExists`).
    @inline(never)
    private func configuration(
        _ definition: JobDefinition, account: Account?, files: [EnvironmentVariable], named: WorkingDirectory?, optionalExists: Bool,
        runID: UInt64, invocationID: String, context: [String: String]
    ) -> SpawnConfiguration {
        let switchesUser = account?.userName != nil
        let environment = JobRunner.environment(
            for: definition, inheritedLanguage: inheritedLanguage, account: account, files: files, runID: runID,
            invocationID: invocationID, context: context)
        var workingDirectory = FilePath("/")
        if !switchesUser, let directory = named, !directory.optional || optionalExists {
            workingDirectory = FilePath(directory.path)
        }
        return SpawnConfiguration(
            argv: definition.command.argv(environment: environment), environment: environment,
            workingDirectory: workingDirectory, userDirectory: switchesUser ? named : nil,
            account: account, attributes: definition.processAttributes, sandbox: definition.sandbox,
            ownedByUser: definition.owningUser != nil)
    }

    private func lookUpAccount(_ definition: JobDefinition) -> Result<Account?, PreparationError> {
        beforeAccountLookUp?()
        do {
            let account = try Account.resolve(user: definition.user, group: definition.group, supplementary: definition.supplementaryGroups)
            if let refusal = Self.ownerRefusal(definition, runsAs: account?.uid) { return .failure(PreparationError(description: refusal)) }
            return .success(account)
        } catch {
            return .failure(PreparationError(description: error.description))
        }
    }

    /// Why a user's own job may not run as `uid` (its account's now): its name now belongs to another uid than
    /// the one her job was loaded as (the account was deleted and created again). A job is an
    /// account's, never a name's (issue 37); the next reload decides it afresh.
    package static func ownerRefusal(_ definition: JobDefinition, runsAs uid: UInt32?) -> String? {
        guard let owner = definition.owningUID, let uid, uid != owner else { return nil }
        return "its user \(definition.owningUser ?? definition.user ?? "") is now uid \(uid), not uid \(owner) as when the job "
            + "was loaded; it runs again after a reload"
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
        let plan = Trampoline.readPlan(account, files: files).encoded()
        let limit = files.count * (EnvironmentFile.sizeLimit + 64)
        let ran = await Self.aside {
            HelperProcess.run(trampoline, arguments: [], environment: [:], input: plan, outputLimit: limit)
                .mapError { PreparationError(description: $0.description) }
        }
        let user = account.userName ?? ""
        switch ran {
        case .success(let result):
            guard result.exit == .exited(0), let reads = Trampoline.decodeReads(result.output, count: files.count) else {
                let reason = result.errorText.split(separator: "\n").last.map(String.init) ?? "jobd-cgexec \(result.status)"
                return .failure(PreparationError(description: "EnvironmentFile=: cannot read the files as user \(user): \(reason)"))
            }
            return parse(zip(files, reads).map { $0.contents(of: $1) }, of: definition)
        case .failure(let error):
            return .failure(PreparationError(description: "EnvironmentFile=: cannot read the files as user \(user): \(error)"))
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

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}

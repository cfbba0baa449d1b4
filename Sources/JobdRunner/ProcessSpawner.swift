import CSpawn
import Glibc
package import JobdProcess
package import JobdConfig

/// Starts a run's process (``jobd_spawn``, Sources/CSpawn/spawn.c: `clone3` with `CLONE_VM |
/// CLONE_VFORK`, as `posix_spawn` clones), without swift-subprocess's per-run tasks and 64 KiB read
/// buffers (issue 39): in a session of its own, every signal at its default (glibc's 32 and 33 too)
/// and none blocked, stdin from `input`, stdout and stderr into pipes of their own, every other
/// descriptor closed, in `workingDirectory`; and what ``Setup`` adds, which `posix_spawn` has no
/// attribute for. Every descriptor jobd keeps is `O_CLOEXEC`, so that no other run inherits it. The
/// process's end is read through a pidfd (``RunReactor``), which only this process's own `waitpid`
/// can consume.
package enum ProcessSpawner {
    /// A started process, and jobd's ends of it (``SpawnedProcess``).
    package typealias Spawned = SpawnedProcess

    /// What the child does before its `execve` beyond the descriptors and directory.
    package struct Setup: Sendable {
        /// Its `RLIMIT_NOFILE` (the soft limit jobd started with: ``DescriptorLimit``), or `nil`: jobd's own.
        package var descriptorLimit: ResourceLimit?
        /// The run's cgroup: the process starts in it (`CLONE_INTO_CGROUP`) and enters its v1 twins.
        package var cgroup: RunCgroup?
        /// A session keyring of its own, as `jobd-cgexec` gives a run (given to ``credentials``).
        package var keyring = false
        /// The groups, gid and uid it switches to last, as `jobd-cgexec` switches; `nil` keeps jobd's.
        package var credentials: ExecPlan.Credentials?
        /// The working directory it enters after the switch, as the user.
        package var userDirectory: WorkingDirectory?

        package init(
            descriptorLimit: ResourceLimit? = nil, cgroup: RunCgroup? = nil, keyring: Bool = false, credentials: ExecPlan.Credentials? = nil,
            userDirectory: WorkingDirectory? = nil
        ) {
            self.descriptorLimit = descriptorLimit
            self.cgroup = cgroup
            self.keyring = keyring
            self.credentials = credentials
            self.userDirectory = userDirectory
        }
    }

    /// Why a process could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        /// The kernel cannot start a process in a cgroup (no `clone3`, or no `CLONE_INTO_CGROUP`):
        /// nothing was started, and `jobd-cgexec` can enter the cgroup instead (``CgroupSpawn``).
        package var cloneIntoCgroupUnsupported = false
    }

    /// Starts `executable` (a path, or a name looked up in `environment`'s `PATH`) with `arguments`
    /// after its argv[0], which is the path it is started from (as swift-subprocess gave it).
    /// `input` becomes its stdin and is closed here, started or not.
    package static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], workingDirectory: String, input: Int32,
        setup: Setup = Setup()
    ) -> Result<Spawned, Failure> {
        defer { close(input) }
        guard let path = resolve(executable, path: environment["PATH"] ?? JobRunner.defaultPath) else {
            return .failure(Failure(description: "cannot start \(executable): no such executable in PATH"))
        }
        var output: [Int32] = [-1, -1]
        var error: [Int32] = [-1, -1]
        guard pipe2(&output, O_CLOEXEC | O_NONBLOCK) == 0 else { return .failure(failure("cannot make a pipe", errno)) }
        guard pipe2(&error, O_CLOEXEC | O_NONBLOCK) == 0 else {
            let code = errno
            close(output[0]); close(output[1])
            return .failure(failure("cannot make a pipe", code))
        }
        // The child's ends block, as a program expects of its stdout; dup2 clears their CLOEXEC.
        _ = fcntl(output[1], F_SETFL, 0)
        _ = fcntl(error[1], F_SETFL, 0)
        let started = start(path, arguments: [path] + arguments, environment: environment, workingDirectory: workingDirectory,
                            descriptors: (input, output[1], error[1]), setup: setup)
        close(output[1])
        close(error[1])
        switch started {
        case .failure(let reason):
            close(output[0]); close(error[0])
            return .failure(reason)
        case .success(let process):
            return .success(Spawned(pid: process.pid, pidfd: process.pidfd, standardOutput: output[0], standardError: error[0]))
        }
    }

    /// `jobd_spawn` (Sources/CSpawn/spawn.c) with the run's descriptors, directory and `setup`.
    private static func start(
        _ path: String, arguments: [String], environment: [String: String], workingDirectory: String,
        descriptors: (input: Int32, output: Int32, error: Int32), setup: Setup
    ) -> Result<(pid: pid_t, pidfd: Int32), Failure> {
        var cgroup: Int32 = -1
        if let directory = setup.cgroup?.directory {
            cgroup = open(directory, JOBD_O_PATH | O_DIRECTORY | O_CLOEXEC)
            // As jobd-cgexec: a cgroup seen gone just after jobd made it is made again once.
            if cgroup < 0 && errno == ENOENT && (mkdir(directory, 0o755) == 0 || errno == EEXIST) {
                cgroup = open(directory, JOBD_O_PATH | O_DIRECTORY | O_CLOEXEC)
            }
            guard cgroup >= 0 else { return .failure(failure("cannot enter the run's cgroup \(directory)", errno)) }
        }
        defer { if cgroup >= 0 { close(cgroup) } }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let legacy = (setup.cgroup.map { Array($0.entered.dropFirst()) } ?? []).map { UnsafePointer(strdup($0)) } + [nil]
        let directory = strdup(workingDirectory)
        let executable = strdup(path)
        let userDirectory: UnsafeMutablePointer<CChar>? = setup.userDirectory.flatMap { strdup($0.path) }
        let groups = setup.credentials?.groups ?? []
        defer {
            free(userDirectory)
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
            for pointer in legacy { free(UnsafeMutablePointer(mutating: pointer)) }
            free(directory)
            free(executable)
        }
        var plan = jobd_spawn_plan()
        plan.input = descriptors.input
        plan.output = descriptors.output
        plan.error = descriptors.error
        plan.cgroup = cgroup
        plan.keyring = setup.keyring ? 1 : 0
        if let limit = setup.descriptorLimit {
            plan.set_nofile = 1
            plan.nofile_soft = limit.soft ?? .max
            plan.nofile_hard = limit.hard ?? .max
        }
        if let credentials = setup.credentials {
            plan.set_groups = credentials.groups == nil ? 0 : 1
            plan.group_count = UInt(groups.count)
            (plan.set_gid, plan.gid) = credentials.gid.map { (1, $0) } ?? (0, 0)
            (plan.set_uid, plan.uid) = credentials.uid.map { (1, $0) } ?? (0, 0)
        }
        plan.user_directory_optional = setup.userDirectory?.optional == true ? 1 : 0
        // jobd_spawn waits for the child's execve (CLONE_VFORK): a command that cannot be executed,
        // or a working directory that cannot be entered, is its result here.
        let result = argv.withUnsafeBufferPointer { argv in
            envp.withUnsafeBufferPointer { envp in
                legacy.withUnsafeBufferPointer { legacy in
                    groups.withUnsafeBufferPointer { groups in
                    plan.groups = groups.baseAddress
                    plan.user_directory = userDirectory.map { UnsafePointer($0) }
                    plan.path = UnsafePointer(executable)
                    plan.directory = UnsafePointer(directory)
                    plan.argv = argv.baseAddress
                    plan.environment = envp.baseAddress
                    plan.legacy_cgroups = setup.cgroup == nil ? nil : legacy.baseAddress
                    return jobd_spawn(&plan)
                    }
                }
            }
        }
        guard result == 0 else { return .failure(failure(Int(plan.failed_step), plan.error_number, path: path, directory: workingDirectory, setup: setup)) }
        return .success((plan.pid, plan.pidfd))
    }

    /// What a failed step of `jobd_spawn` means for the run.
    private static func failure(_ step: Int, _ code: Int32, path: String, directory: String, setup: Setup) -> Failure {
        switch step {
        case JOBD_SPAWN_CLONE where setup.cgroup != nil && CgroupSpawn.isUnsupported(errno: code):
            return Failure(description: "cannot start a process in its cgroup: \(String(cString: strerror(code)))", cloneIntoCgroupUnsupported: true)
        case JOBD_SPAWN_CLONE: return failure("cannot start \(path)", code)
        case JOBD_SPAWN_SESSION: return failure("cannot start \(path) in a session of its own", code)
        case JOBD_SPAWN_DESCRIPTORS: return failure("cannot give \(path) its stdin, stdout and stderr", code)
        case JOBD_SPAWN_DIRECTORY: return failure("cannot change to the working directory \(directory)", code)
        case JOBD_SPAWN_CGROUP: return failure("cannot enter the run's cgroup \(setup.cgroup?.entered.dropFirst().joined(separator: " ") ?? "")", code)
        case JOBD_SPAWN_KEYRING: return failure("cannot make the run's session keyring", code)
        case JOBD_SPAWN_LIMIT: return failure("cannot set the run's LimitNOFILE=", code)
        case JOBD_SPAWN_CLOSE: return failure("cannot close jobd's descriptors in the run", code)
        case JOBD_SPAWN_PIDFD: return failure("cannot open a pidfd of \(path)", code)
        // jobd-cgexec's words for the same failures (credentials.c, command.c).
        case JOBD_SPAWN_GROUPS: return failure("cannot switch to gid \(setup.credentials?.gid.map(String.init) ?? "") and its groups", code)
        case JOBD_SPAWN_USER: return failure("cannot switch to uid \(setup.credentials?.uid.map(String.init) ?? "")", code)
        case JOBD_SPAWN_USER_DIRECTORY: return failure("cannot change to the working directory \(setup.userDirectory?.path ?? "")", code)
        default: return failure("cannot start \(path)", code)
        }
    }

    /// Whether jobd's child `pid` has ended: `waitid` with `WNOWAIT` leaves it to the reactor,
    /// which reaps it; a child that is no more (`ECHILD`) was reaped already.
    package static func hasEnded(_ pid: Int32) -> Bool {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return errno == ECHILD }
        return info._sifields._sigchld.si_pid == pid
    }

    /// `name` itself when it holds a `/`; else the first executable file of that name in `path`'s
    /// directories (absolute ones only, as swift-subprocess looks a name up).
    package static func resolve(_ name: String, path: String) -> String? {
        if name.contains("/") { return name }
        for directory in path.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = directory + "/" + name
            var status = stat()
            if stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func failure(_ what: String, _ code: Int32) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(code)))")
    }
}

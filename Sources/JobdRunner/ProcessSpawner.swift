import CSpawn
import Glibc

/// Starts a run's process with `posix_spawn`, as swift-subprocess did, without its per-run tasks
/// and 64 KiB read buffers (issue 39): in a session of its own (`POSIX_SPAWN_SETSID`), every
/// signal at its default and none blocked, stdin from `input`, stdout and stderr into pipes of
/// their own, every other descriptor closed, in `workingDirectory`. Every descriptor jobd keeps is
/// `O_CLOEXEC`, so that no other run inherits it. The process's end is read through a pidfd
/// (``RunReactor``), which only this process's own `waitpid` can consume.
package enum ProcessSpawner {
    /// A started process, and jobd's ends of it (non-blocking, close-on-exec).
    package struct Spawned: Sendable {
        package var pid: Int32
        /// Readable once the process has exited.
        package var pidfd: Int32
        package var standardOutput: Int32
        package var standardError: Int32
    }

    /// Why a process could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Starts `executable` (a path, or a name looked up in `environment`'s `PATH`) with `arguments`
    /// after its argv[0], which is the path it is started from (as swift-subprocess gave it).
    /// `input` becomes its stdin and is closed here, started or not.
    package static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], workingDirectory: String, input: Int32
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
                            descriptors: (input, output[1], error[1]))
        close(output[1])
        close(error[1])
        switch started {
        case .failure(let reason):
            close(output[0]); close(error[0])
            return .failure(reason)
        case .success(let pid):
            let pidfd = pidfd_open(pid, 0)
            guard pidfd >= 0 else {
                // Without a pidfd its end would go unseen: stop it rather than leave it running untracked.
                let code = errno
                killpg(pid, SIGKILL)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                close(output[0]); close(error[0])
                return .failure(failure("cannot open a pidfd of process \(pid)", code))
            }
            return .success(Spawned(pid: pid, pidfd: pidfd, standardOutput: output[0], standardError: error[0]))
        }
    }

    /// `posix_spawn` with the run's attributes and file actions; the pid of the child.
    private static func start(
        _ path: String, arguments: [String], environment: [String: String], workingDirectory: String,
        descriptors: (input: Int32, output: Int32, error: Int32)
    ) -> Result<pid_t, Failure> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        var all = sigset_t()
        var none = sigset_t()
        sigfillset(&all)
        // The kernel refuses a disposition for these two, and neither can have one to reset.
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | JOBD_POSIX_SPAWN_SETSID))
        for (from, to) in [(descriptors.input, 0), (descriptors.output, 1), (descriptors.error, 2)] {
            posix_spawn_file_actions_adddup2(&actions, from, Int32(to))
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        posix_spawn_file_actions_addchdir_np(&actions, workingDirectory)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        // posix_spawn waits for the child's execve (CLONE_VFORK): a command that cannot be
        // executed, or a working directory that cannot be entered, is its result here.
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { return .failure(failure("cannot start \(path)", result)) }
        return .success(pid)
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

    private static func failure(_ what: String, _ code: Int32) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(code)))")
    }
}

import CJobdSpawn
import CSpawn
import Glibc
package import JobdConfig

/// Starts a run's process as `posix_spawn` does (``jobd_run_spawn``), without swift-subprocess's
/// per-run tasks and 64 KiB read buffers (issue 39), with the run's `RLIMIT_NOFILE` when one is
/// given (``DescriptorLimit``): in a session of its own, every
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
        _ executable: String, arguments: [String], environment: [String: String], workingDirectory: String, input: Int32,
        descriptorLimit: ResourceLimit? = nil
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
                            descriptors: (input, output[1], error[1]), descriptorLimit: descriptorLimit)
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

    /// The child's setup (``jobd_run_spawn``, posix_spawn's way plus the resource limit), the pid of
    /// the child.
    private static func start(
        _ path: String, arguments: [String], environment: [String: String], workingDirectory: String,
        descriptors: (input: Int32, output: Int32, error: Int32), descriptorLimit: ResourceLimit?
    ) -> Result<pid_t, Failure> {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var step: UnsafePointer<CChar>?
        // It waits for the child's execve (CLONE_VFORK): a command that cannot be executed, or a
        // working directory that cannot be entered, is its result here.
        let result = path.withCString { path in
            workingDirectory.withCString { directory in
                argv.withUnsafeBufferPointer { argv in
                    envp.withUnsafeBufferPointer { envp in
                        var spawn = jobd_run_spawn(
                            path: path, argv: argv.baseAddress, envp: envp.baseAddress, directory: directory,
                            input: descriptors.input, output: descriptors.output, error: descriptors.error,
                            set_nofile: descriptorLimit == nil ? 0 : 1,
                            nofile_soft: descriptorLimit.map { $0.soft ?? .max } ?? 0,
                            nofile_hard: descriptorLimit.map { $0.hard ?? .max } ?? 0)
                        return jobd_run_spawn(&spawn, &step)
                    }
                }
            }
        }
        guard result >= 0 else {
            let what = step.map { String(cString: $0) }
            // As posix_spawn said it: the command's own failure names the command alone.
            return .failure(failure(what == "execve" || what == "chdir" || what == nil ? "cannot start \(path)" : "cannot start \(path) (\(what!))", -result))
        }
        return .success(result)
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

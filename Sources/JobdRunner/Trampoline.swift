import Glibc
import JobdConfig

/// `jobd-cgexec` (Sources/jobd-cgexec/main.c over Sources/CJobdExec), the one program that runs as root between jobd and a
/// run's command wherever the run needs a cgroup or other credentials: started with an empty
/// environment, it enters the cgroup, joins a session keyring of the run's own (as systemd's
/// `KeyringMode=private`), switches groups, gid and uid, changes to the working directory
/// as the job's user, and only then `execve`s the command with the job's environment. All of that is
/// one ``ExecPlan`` it reads on stdin. So nothing a job controls (`Environment=`, `EnvironmentFile=`,
/// an imported crontab's variables) reaches a process that runs as root (issue 26). Its other mode
/// reads a `User=` job's `EnvironmentFile=`s as that user; a `User=` run's mail goes through it too.
///
/// Here: its plans, and what it sends back, as pure functions; the spawning is ``JobRunner``'s.
enum Trampoline {
    /// `jobd-cgexec` beside jobd's binary (a build directory) or in `../libexec/jobd/` (installed).
    static let located: String? = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let executable = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let binDirectory = String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
        return [binDirectory + "/jobd-cgexec", binDirectory + "/../libexec/jobd/jobd-cgexec"].first { access($0, X_OK) == 0 }
    }()

    /// Why a run that needs the trampoline cannot start without it.
    static let missing = "jobd-cgexec is not installed beside jobd (nor in ../libexec/jobd/): it is needed to run a job in a cgroup, as User=/Group=, or with RunOn=one-node (its fence)"

    /// The plan of a run: its cgroup, its process attributes (`Nice=`, `Limit…=`…, set while it is
    /// still root), its sandbox, a session keyring of its own, its credentials, the working
    /// directory (changed to after the switch), its environment and command. A fleet run's `fence`
    /// makes the trampoline stay as the run's supervisor (``RunFence``).
    static func plan(cgroup: RunCgroup?, attributes: ProcessAttributes = ProcessAttributes(), sandbox: ExecPlan.Sandbox = ExecPlan.Sandbox(),
                     account: Account?, directory: WorkingDirectory?, fence: (RunFence, stopTimeout: TimeSpan)? = nil,
                     environment: [String: String], argv: [String]) -> ExecPlan {
        var plan = ExecPlan()
        plan.cgroups = cgroup?.entered ?? []
        plan.attributes = attributes.execAttributes
        plan.sandbox = sandbox
        plan.keyring = true
        plan.fence = fence.map { $0.0.planned(stopTimeout: $0.stopTimeout) }
        plan.credentials = account.map(ExecPlan.Credentials.init) ?? ExecPlan.Credentials()
        plan.directory = directory
        plan.environment = environment
        plan.argv = argv
        return plan
    }

    /// The plan that reads `files` as `account`'s user.
    static func readPlan(_ account: Account, files: [EnvironmentFile]) -> ExecPlan {
        var plan = ExecPlan(mode: .readFiles(limit: UInt64(EnvironmentFile.sizeLimit)))
        plan.credentials = ExecPlan.Credentials(account)
        plan.readFiles = files.map(\.path)
        return plan
    }

    /// The plan that hands a run's mail to `argv` (sendmail) as `account`'s user, through the same
    /// switch as the run's; the message follows the plan on stdin.
    static func mailPlan(_ account: Account, argv: [String], environment: [String: String]) -> ExecPlan {
        var plan = ExecPlan()
        plan.credentials = ExecPlan.Credentials(account)
        plan.environment = environment
        plan.argv = argv
        plan.keepsStandardInput = true
        return plan
    }

    /// What the read mode wrote: for each file, a line `ERRNO MODE SIZE` and SIZE bytes. `nil` when
    /// the output is not that (the reader failed).
    static func decodeReads(_ output: [UInt8], count: Int) -> [Result<String, FileAccessError>]? {
        var results: [Result<String, FileAccessError>] = []
        var rest = output[...]
        while results.count < count {
            guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let header = String(decoding: rest[..<newline], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
            rest = rest[(newline + 1)...]
            guard header.count == 3, header[2] <= rest.count, let code = Int32(exactly: header[0]),
                  let mode = mode_t(exactly: header[1]) else { return nil }
            let bytes = rest.prefix(header[2])
            rest = rest.dropFirst(header[2])
            if code == EFBIG {
                results.append(.failure(FileAccessError("the file is larger than \(EnvironmentFile.sizeLimit) bytes")))
            } else if code != 0 {
                results.append(.failure(FileAccessError(errno: code, "cannot read the file as the job's user")))
            } else if mode & S_IFMT != S_IFREG {
                results.append(.failure(FileAccessError(notRegular: mode)))
            } else {
                results.append(FileSystem.text(of: ArraySlice(bytes)))
            }
        }
        return rest.isEmpty ? results : nil
    }
}

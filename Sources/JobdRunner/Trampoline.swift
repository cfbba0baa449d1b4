import Glibc
import JobdConfig

/// `jobd-cgexec` (Sources/jobd-cgexec/main.c), the one program that runs as root between jobd and a
/// run's command wherever the run needs a cgroup or other credentials: started with an empty
/// environment, it enters the cgroup, joins a session keyring of the run's own (as systemd's
/// `KeyringMode=private`), switches groups, gid and uid, changes to the working directory
/// as the job's user, and only then `execve`s the command with the job's environment, which it
/// reads from stdin. So nothing a job controls (`Environment=`, `EnvironmentFile=`, an imported
/// crontab's variables) reaches a process that runs as root (issue 26). Its other mode reads a
/// `User=` job's `EnvironmentFile=`s as that user.
///
/// Here: its words, and what it sends back, as pure functions; the spawning is ``JobRunner``'s.
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

    /// The options that switch to `account` as `setpriv --reuid --regid --groups` would: the uid only
    /// for `User=`; without `User=` (only `Group=`), jobd's own supplementary groups are kept.
    static func credentialOptions(_ account: Account) -> [String] {
        var words: [String] = []
        if let groups = account.supplementaryGroups { words += ["--groups", groups.map(String.init).joined(separator: ",")] }
        words += ["--gid", String(account.gid)]
        if account.userName != nil { words += ["--uid", String(account.uid)] }
        return words
    }

    /// The words before the command's own for a run: its cgroup, its process attributes (`Nice=`,
    /// `Limit…=`…, set while it is still root), its credentials, and the working
    /// directory (changed to after the switch; a leading `-`: a missing one means `/`).
    /// A fleet run's `fence` makes the trampoline stay as the run's supervisor (``RunFence``).
    static func options(cgroup: RunCgroup?, attributes: ProcessAttributes = ProcessAttributes(), sandbox: [String] = [], account: Account?,
                        directory: WorkingDirectory?, fence: (RunFence, stopTimeout: TimeSpan)? = nil) -> [String] {
        var words: [String] = []
        for entered in cgroup?.entered ?? [] { words += ["--cgroup", entered] }
        words += attributes.trampolineOptions + sandbox
        if let (fence, stopTimeout) = fence { words += fence.options(stopTimeout: stopTimeout) }
        if let account { words += credentialOptions(account) }
        if let directory { words += ["--directory", (directory.optional ? "-" : "") + directory.path] }
        return words + ["--"]
    }

    /// The words that read `files` as `account`'s user.
    static func readOptions(_ account: Account, files: [EnvironmentFile]) -> [String] {
        credentialOptions(account) + ["--limit", String(EnvironmentFile.sizeLimit), "--read", "--"] + files.map(\.path)
    }

    /// The environment as the trampoline reads it from stdin: `NAME=value` entries, each ended by a
    /// NUL, then one more NUL, which tells the trampoline that it has all of it (and not a stream
    /// that jobd closed early).
    static func encode(_ environment: [String: String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            bytes += Array(name.utf8) + [UInt8(ascii: "=")] + Array(value.utf8) + [0]
        }
        return bytes + [0]
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

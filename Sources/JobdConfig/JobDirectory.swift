import Glibc
import JobdCalendar

/// A configuration directory: `jobs.d/*.job`, one job per file, read in name order.
package struct JobDirectory: Sendable {
    /// The configuration directory, such as `/etc/jobd`.
    package var path: String

    package init(path: String) {
        self.path = path
    }

    package var jobsPath: String { path.hasSuffix("/") ? path + "jobs.d" : path + "/jobs.d" }
    /// jobd's own settings file; optional.
    package var settingsPath: String { path.hasSuffix("/") ? path + "jobd.conf" : path + "/jobd.conf" }

    /// Reads `jobd.conf` and every job file. All or nothing: any error in any file fails the whole
    /// load, and every error found is reported.
    package func loadConfiguration() -> Result<Configuration, ConfigErrors> {
        // Zones named in calendar triggers are read again if their files changed (tzdata upgrade).
        TimeZoneRules.revalidateCache()
        return combine(settings: loadSettings(), jobs: load())
    }

    /// Reads `jobd.conf` (if there is one) and exactly the job files at `paths`, wherever they are,
    /// as `jobctl check FILE...` does: the same checks as a load of the whole directory.
    package func loadConfiguration(files paths: [String]) -> Result<Configuration, ConfigErrors> {
        var definitions: [JobDefinition] = []
        var errors: [ConfigError] = []
        for path in paths {
            let base = path.split(separator: "/").last.map(String.init) ?? path
            guard base.hasSuffix(".job"), base.count > 4 else {
                errors.append(ConfigError(
                    file: path, line: nil, message: "a job file's name must end in .job",
                    hint: "jobd reads only jobs.d/NAME.job; the job's name is NAME"))
                continue
            }
            switch Self.readJobFile(path, name: String(base.dropLast(4))) {
            case .success(let definition): definitions.append(definition)
            case .failure(let fileErrors): errors += fileErrors.errors
            }
        }
        return combine(settings: loadSettings(), jobs: errors.isEmpty ? .success(definitions) : .failure(ConfigErrors(errors)))
    }

    /// `jobd.conf`'s settings (the defaults when there is none), or its errors.
    func loadSettings() -> Result<DaemonSettings, ConfigErrors> {
        switch FileSystem.readTextFile(settingsPath) {
        case .success(let text):
            return DaemonSettings.read(path: settingsPath, text: text)
        case .failure(let error) where error.errno == ENOENT:
            return .success(DaemonSettings())
        case .failure(let error):
            return .failure(ConfigErrors([ConfigError(
                file: settingsPath, line: nil, message: error.message,
                hint: error.isNotRegular ? "jobd.conf must be a regular file; remove it to use the defaults" : nil)]))
        }
    }

    /// Settings and jobs together, or every error of both, the settings' first.
    private func combine(
        settings: Result<DaemonSettings, ConfigErrors>, jobs: Result<[JobDefinition], ConfigErrors>
    ) -> Result<Configuration, ConfigErrors> {
        switch (settings, jobs) {
        case (.success(let settings), .success(let definitions)):
            return .success(Configuration(daemon: settings, jobs: definitions))
        default:
            var errors: [ConfigError] = []
            if case .failure(let failure) = settings { errors += failure.errors }
            if case .failure(let failure) = jobs { errors += failure.errors }
            return .failure(ConfigErrors(errors))
        }
    }

    static func readJobFile(_ path: String, name: String) -> Result<JobDefinition, ConfigErrors> {
        switch FileSystem.readTextFile(path) {
        case .failure(let error):
            return .failure(ConfigErrors([ConfigError(
                file: path, line: nil, message: error.message,
                hint: error.isNotRegular ? "remove it, or rename it so that its name does not end in .job" : nil)]))
        case .success(let text):
            return JobFileReader.read(name: name, path: path, text: text)
        }
    }

    /// Reads every job file (not `jobd.conf`). All or nothing: any error in any file fails the
    /// whole load, and every error found is reported.
    package func load() -> Result<[JobDefinition], ConfigErrors> {
        let names: [String]
        switch jobFileNames() {
        case .failure(let error): return .failure(ConfigErrors([error]))
        case .success(let found): names = found
        }
        var definitions: [JobDefinition] = []
        var errors: [ConfigError] = []
        for result in Self.readJobFiles(names.map { (jobsPath + "/" + $0, String($0.dropLast(4))) }) {
            switch result {
            case .success(let definition): definitions.append(definition)
            case .failure(let fileErrors): errors += fileErrors.errors
            }
        }
        return errors.isEmpty ? .success(definitions) : .failure(ConfigErrors(errors))
    }

    /// The job files' names (`*.job`, not hidden) in name order; an error when the configuration
    /// directory or `jobs.d` cannot be read (a missing `jobs.d` means no jobs).
    func jobFileNames() -> Result<[String], ConfigError> {
        switch FileSystem.directoryEntries(path) {
        case .failure(let error):
            return .failure(ConfigError(
                file: path, line: nil,
                message: "cannot read the configuration directory: \(error.message)",
                hint: "pass the directory that holds jobs.d/ with --config-dir"))
        case .success:
            switch FileSystem.directoryEntries(jobsPath) {
            case .success(let entries): return .success(entries.sorted().filter { $0.hasSuffix(".job") && !$0.hasPrefix(".") })
            case .failure(let error) where error.errno == ENOENT: return .success([])
            case .failure(let error):
                return .failure(ConfigError(file: jobsPath, line: nil, message: "cannot read the jobs directory: \(error.message)"))
            }
        }
    }
}

/// Why a file or directory could not be read.
struct FileAccessError: Error {
    var errno: Int32
    var message: String
    /// The file exists but is a FIFO, socket, device or directory.
    var isNotRegular = false

    init(errno: Int32, _ what: String) {
        self.errno = errno
        self.message = "\(what): \(String(cString: strerror(errno)))"
    }

    init(_ message: String) {
        self.errno = 0
        self.message = message
    }

    /// A file of another type than a regular file, named by `mode`.
    init(notRegular mode: mode_t) {
        let kind = switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a directory"
        default: "not a file"
        }
        self.init("it is \(kind), not a regular file; jobd reads configuration only from regular files")
        isNotRegular = true
    }
}

/// The little file access configuration needs, on Glibc directly.
enum FileSystem {
    static func directoryEntries(_ path: String) -> Result<[String], FileAccessError> {
        guard let directory = opendir(path) else { return .failure(FileAccessError(errno: errno, "cannot open it")) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }

    /// The file's contents as UTF-8 text, or a message saying why not. Sized by `fstat`, so a
    /// small job file costs one small allocation, not a zeroed 64 KiB buffer.
    ///
    /// Only a regular file (or a link to one) is read: its type is known from `lstat`/`stat` before
    /// it is opened, so a FIFO never blocks and a device is never opened (opening some has effects:
    /// `/dev/watchdog`). The open is non-blocking and refuses a link where there was none, and
    /// `fstat` checks that the file opened is the one looked at.
    static func readTextFile(_ path: String, limit: Int = 1 << 20) -> Result<String, FileAccessError> {
        var looked = stat()
        guard lstat(path, &looked) == 0 else { return .failure(FileAccessError(errno: errno, "cannot open the file")) }
        let isLink = looked.st_mode & S_IFMT == S_IFLNK
        if isLink, stat(path, &looked) != 0 { return .failure(FileAccessError(errno: errno, "cannot open the file the link points to")) }
        guard looked.st_mode & S_IFMT == S_IFREG else { return .failure(FileAccessError(notRegular: looked.st_mode)) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (isLink ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return .failure(FileAccessError(errno: errno, "cannot open the file")) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .failure(FileAccessError(errno: errno, "cannot read the file")) }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_dev == looked.st_dev, status.st_ino == looked.st_ino else {
            return .failure(FileAccessError("the file was replaced while it was opened; try again"))
        }
        guard status.st_size <= limit else { return .failure(FileAccessError("the file is larger than \(limit) bytes")) }
        // One more byte than the size: a file that grew meanwhile is read on, not cut.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard bytes.count <= limit else { return .failure(FileAccessError("the file is larger than \(limit) bytes")) }
                bytes += [UInt8](repeating: 0, count: max(4_096, bytes.count))
            }
            let got = bytes[count...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                return .failure(FileAccessError(errno: errno, "cannot read the file"))
            }
            if got == 0 { break }
            count += got
        }
        guard let text = String(validating: bytes[..<count], as: UTF8.self) else {
            return .failure(FileAccessError("the file is not valid UTF-8 text"))
        }
        return .success(text)
    }
}

package import Glibc
import SystemPackage

/// The little file access configuration needs, on Glibc directly.
package enum FileSystem {
    /// The names in directory `path`, `.` and `..` left out, in the order the file system gives them.
    package static func directoryEntries(_ path: String) -> Result<[String], FileAccessError> {
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

    /// What `transform` makes of the status (`stat`, links followed) of each of `names` in
    /// directory `path`, in order; `nil` where there is none. One open of the directory, then
    /// `fstatat` relative to it (the kernel walks one name per file instead of the whole path), on
    /// every core.
    package static func statuses<T: Sendable>(of names: [String], in path: String, _ transform: @Sendable (stat) -> T?) -> [T?] {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return Array(repeating: nil, count: names.count) }
        defer { close(directory) }
        return names.concurrentMap(minimumChunk: 512) { name in
            var status = stat()
            return name.withCString { fstatat(directory, $0, &status, 0) } == 0 ? transform(status) : nil
        }
    }

    /// The status of the file at `path` (links followed), or `nil`.
    package static func status(_ path: String) -> stat? {
        var status = stat()
        return stat(path, &status) == 0 ? status : nil
    }

    /// The type of the file system mounted from `device` (`ext4`, `nfs4` ...), as
    /// `/proc/self/mountinfo` names it; `nil` where no mount is of that device (a btrfs
    /// subvolume has a device of its own) or there is no `/proc`.
    package static func fileSystemType(device: UInt64) -> String? {
        guard case .success(let text) = readTextFile("/proc/self/mountinfo") else { return nil }
        // glibc's major() and minor().
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        let wanted = "\(major):\(minor)"
        for line in text.split(separator: "\n") {
            // ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE SOURCE SUPEROPTIONS
            let fields = line.split(separator: " ")
            guard fields.count > 2, fields[2] == wanted, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { continue }
            return String(fields[dash + 1])
        }
        return nil
    }

    /// The file's contents as UTF-8 text, or a message saying why not. Sized by `fstat`, so a
    /// small job file costs one small allocation, not a zeroed 64 KiB buffer.
    ///
    /// Only a regular file (or a link to one) is read: its type is known from `lstat`/`stat` before
    /// it is opened, so a FIFO never blocks and a device is never opened (opening some has effects:
    /// `/dev/watchdog`). The open is non-blocking and refuses a link where there was none, and
    /// `fstat` checks that the file opened is the one looked at.
    package static func readTextFile(_ path: String, limit: Int = 1 << 20) -> Result<String, FileAccessError> {
        readFile(path, limit: limit).map(\.text)
    }

    /// The whole of a kernel's short file (`/proc/PID/stat`), read with one open and one read into
    /// a buffer of `capacity` bytes on the stack, handed to `body`; `nil` when it cannot be opened
    /// or read, or fills the buffer. For a file read often, where ``readTextFile(_:limit:)``'s
    /// checks (a regular file, not replaced meanwhile) and its string cost more than the read.
    package static func readKernelFile<R>(_ path: String, capacity: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return FileDescriptor(rawValue: fd).readWhole(capacity: capacity, body)
    }

    /// As ``readTextFile(_:limit:)``, with the status (`fstat`) of the file read: the file the text came from.
    package static func readFile(_ path: String, limit: Int = 1 << 20) -> Result<(text: String, status: stat), FileAccessError> {
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
        return readOpened(fd, status: status, limit: limit)
    }

    /// As ``readFile(_:limit:)`` for the file `name` in the directory open as `directory`, which a
    /// `stat` (links followed) found a moment ago to be the regular file `device`/`inode`: one
    /// `openat` of one name instead of an `lstat` and an `open` that each walk the whole path
    /// (issue 19). `nil` when the file there now is not that one (replaced since: `fstat` on the
    /// opened file says) or is a link (refused by `O_NOFOLLOW`): read it by its path then.
    package static func readFile(
        named name: String, in directory: Int32, device: UInt64, inode: UInt64, limit: Int = 1 << 20
    ) -> Result<(text: String, status: stat), FileAccessError>? {
        let fd = openat(directory, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW)
        guard fd >= 0 else { return errno == ELOOP ? nil : .failure(FileAccessError(errno: errno, "cannot open the file")) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .failure(FileAccessError(errno: errno, "cannot read the file")) }
        guard status.st_mode & S_IFMT == S_IFREG, UInt64(status.st_dev) == device, UInt64(status.st_ino) == inode else { return nil }
        return readOpened(fd, status: status, limit: limit)
    }

    /// The text of the regular file open as `fd`, whose `fstat` is `status`.
    private static func readOpened(_ fd: Int32, status: stat, limit: Int) -> Result<(text: String, status: stat), FileAccessError> {
        guard status.st_size <= limit else { return .failure(FileAccessError("the file is larger than \(limit) bytes")) }
        // One more byte than the size: a file that grew meanwhile is read on, not cut.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard bytes.count <= limit else { return .failure(FileAccessError("the file is larger than \(limit) bytes")) }
                bytes += [UInt8](repeating: 0, count: max(4_096, bytes.count))
            }
            let got: Int
            do {
                got = try bytes[count...].withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
            } catch {
                return .failure(FileAccessError(errno: (error as? Errno)?.rawValue ?? EIO, "cannot read the file"))
            }
            if got == 0 { break }
            count += got
            // A regular file's read comes short only at its end: no further read to see it.
            if count < bytes.count { break }
        }
        return text(of: bytes[..<count]).map { ($0, status) }
    }

    /// The bytes of a file as text, or the error that says they are not.
    package static func text(of bytes: ArraySlice<UInt8>) -> Result<String, FileAccessError> {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(FileAccessError("the file is not valid UTF-8 text"))
        }
        return .success(text)
    }
}

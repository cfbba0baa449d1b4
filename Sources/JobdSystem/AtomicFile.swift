package import Glibc
import SystemPackage

/// Replaces a file's contents atomically: the text goes to a temporary file beside it, which is
/// renamed over the old one, so a reader (or jobd after a crash) sees the old file or the new one,
/// never half of one. The one writer of jobd's files: state, metrics, and `jobctl import`'s jobs.
///
/// jobd writes as root, so the temporary file gets an unpredictable name, created afresh with
/// `O_EXCL|O_NOFOLLOW` (what `mkostemp` does; Swift's Glibc does not export it): no one can plant a
/// link at it in advance. The name starts with a dot, so that a listing of the directory (the
/// disabled jobs) never takes a temporary file for an entry.
package enum AtomicFile {
    /// Why a file could not be written: the step and its errno.
    package struct WriteError: Error, CustomStringConvertible {
        package var description: String

        // Written out: a memberwise initializer is internal, and the spool writers are another module.
        package init(description: String) {
            self.description = description
        }
    }

    /// Writes `text` to `path`, with `mode`. With `durable`, the file is `fsync`ed before the
    /// rename and its directory after it, so that the new file, not only its bytes, survives a
    /// power cut. With `owner`, the file is given to that user and group before it takes the
    /// path's place (a user's own job, ``UserJobStore``).
    package static func replace(
        _ path: String, with text: String, mode: UInt32 = 0o644, owner: (uid: uid_t, gid: gid_t)? = nil, durable: Bool = false
    ) throws(WriteError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let parent = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { throw WriteError(description: "cannot write \(path): \(describe(errno))") }
        defer { close(parent) }
        try replace(named: name, in: parent, path: path, with: text, mode: mode, owner: owner, durable: durable)
    }

    /// As ``replace(_:with:mode:owner:durable:)``, for the file `name` in the directory open as
    /// `directory` (`path` names it in errors): the temporary file is made and renamed there, by
    /// `openat` and `renameat`, so that no link in the directory's path can move the write elsewhere
    /// between the check of the directory and the write (users' crontabs, ``CrontabSpool``).
    package static func replace(
        named name: String, in directory: Int32, path: String, with text: String, mode: UInt32 = 0o644,
        owner: (uid: uid_t, gid: gid_t)? = nil, durable: Bool = false
    ) throws(WriteError) {
        var fd: Int32 = -1
        var temporary = ""
        for _ in 0..<8 {
            temporary = "." + name + "." + String(UInt64.random(in: 1 ... .max), radix: 36)
            fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw WriteError(description: "cannot create a file beside \(path): \(describe(errno))") }
        var failure: Int32 = 0
        do throws(Errno) { try FileDescriptor(rawValue: fd).writeEvery(Array(text.utf8)) } catch { failure = error.rawValue }
        // The mode asked for, whatever the umask took away.
        if failure == 0, fchmod(fd, mode) != 0 { failure = errno }
        if failure == 0, let owner, fchown(fd, owner.uid, owner.gid) != 0 { failure = errno }
        if failure == 0, durable, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0, renameat(directory, temporary, directory, name) != 0 { failure = errno }
        if failure != 0 {
            unlinkat(directory, temporary, 0)
            throw WriteError(description: "cannot write \(path): \(describe(failure))")
        }
        if durable { _ = fsync(directory) }
    }

    /// Writes `text` to `path` where no file is yet, in place: the file is created (`O_EXCL`,
    /// `O_NOFOLLOW`, `mode` less the umask) and written at once; `false`, with nothing written,
    /// where a file is already. Not a replacement: a crash between the create and the write
    /// leaves the file empty, so its reader takes an empty file for one never written. For files
    /// written once each, thousands a second (a run's record in `runs/`): no temporary file, no
    /// `fchmod`, no `rename` and no open of the directory, as ``replace(_:with:mode:owner:durable:)`` needs.
    package static func create(_ path: String, with text: String, mode: UInt32 = 0o644) throws(WriteError) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        if fd < 0, errno == EEXIST { return false }
        guard fd >= 0 else { throw WriteError(description: "cannot create \(path): \(describe(errno))") }
        var failure: Int32 = 0
        do throws(Errno) { try FileDescriptor(rawValue: fd).writeEvery(Array(text.utf8)) } catch { failure = error.rawValue }
        close(fd)
        if failure != 0 {
            unlink(path)
            throw WriteError(description: "cannot write \(path): \(describe(failure))")
        }
        return true
    }

    /// Whether `path` is a regular file and empty: one that ``create(_:with:mode:)`` made, and a
    /// crash kept from being written.
    package static func isUnwritten(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && status.st_size == 0
    }

    private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

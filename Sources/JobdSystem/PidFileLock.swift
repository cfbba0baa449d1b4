import Glibc

/// The exclusive lock on `RUNTIME_DIR/jobd.pid` that makes jobd one per runtime directory: taken
/// before the socket or the pid file is touched, held (by the open descriptor) until jobd exits.
/// A second jobd finds it held and leaves everything as it was.
///
/// The pid is written into the locked file itself, never renamed over it: a rename would put a
/// new, unlocked file at the path.
package final class PidFileLock {
    /// What trying to take the lock came to.
    package enum Outcome {
        case locked(PidFileLock)
        /// Another process holds it; its pid as the file says, if it says one.
        case held(by: Int32?, path: String)
        /// No lock could be taken (no access to the directory, a planted link…): jobd runs
        /// without a socket and pid file, and says why.
        case unavailable(String)
    }

    package let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Creates `directory` (0755) if needed, checks that it is a directory of jobd's own that no one
    /// else can write to, then locks `directory/jobd.pid` (created without following a link).
    package static func acquire(directory: String, fileName: String) -> Outcome {
        let path = directory + "/" + fileName
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            return .unavailable("cannot create \(directory): \(describe(errno))")
        }
        if let problem = OwnedDirectory.problem(with: directory) { return .unavailable(problem) }
        // The lock is on an inode: if the holder removed the file between our open and our lock,
        // we hold a lock on nothing, so look again.
        for _ in 0..<10 {
            let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o644)
            guard fd >= 0 else { return .unavailable("cannot open \(path): \(describe(errno))") }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let lockErrno = errno
                let pid = readPid(fd)
                close(fd)
                if lockErrno == EWOULDBLOCK { return .held(by: pid, path: path) }
                return .unavailable("cannot lock \(path): \(describe(lockErrno))")
            }
            var opened = stat()
            var named = stat()
            guard fstat(fd, &opened) == 0 else {
                close(fd)
                return .unavailable("cannot read \(path): \(describe(errno))")
            }
            guard opened.st_mode & S_IFMT == S_IFREG else {
                close(fd)
                return .unavailable("\(path) is not a regular file")
            }
            if lstat(path, &named) == 0, named.st_dev == opened.st_dev, named.st_ino == opened.st_ino {
                return .locked(PidFileLock(path: path, fd: fd))
            }
            close(fd)
        }
        return .unavailable("\(path) keeps being replaced")
    }

    /// Writes jobd's pid into the locked file: first the digits, then the length, so that a reader
    /// never sees an empty file.
    package func writePid() -> Int32? {
        let text = Array("\(getpid())\n".utf8)
        let written = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == text.count else { return written < 0 ? errno : EIO }
        return ftruncate(fd, off_t(text.count)) == 0 ? nil : errno
    }

    /// Removes the pid file, then lets go of the lock.
    package func release() {
        unlink(path)
        close(fd)
    }

    /// The first line of the file as a pid, if it is one.
    private static func readPid(_ fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let line = bytes[..<count].prefix { $0 != UInt8(ascii: "\n") }
        return Int32(String(decoding: line, as: UTF8.self)).flatMap { $0 > 0 ? $0 : nil }
    }

    package static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

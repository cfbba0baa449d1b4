import Glibc

/// Why a file or directory could not be read.
package struct FileAccessError: Error {
    package var errno: Int32
    package var message: String
    /// The file exists but is a FIFO, socket, device or directory.
    package var isNotRegular = false

    package init(errno: Int32, _ what: String) {
        self.errno = errno
        self.message = "\(what): \(String(cString: strerror(errno)))"
    }

    package init(_ message: String) {
        self.errno = 0
        self.message = message
    }

    /// A file of another type than a regular file, named by `mode`.
    package init(notRegular mode: UInt32) {
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

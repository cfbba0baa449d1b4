import CXattr
import Glibc
import JobdSystem
import SystemPackage

/// Reading and writing the files of a cgroup directory, errors as errno values.
enum CgroupFile {
    /// The whole file (`cgroup.procs` of a run with thousands of processes is longer than a page),
    /// read through a buffer on the stack: a run's end reads several of these files.
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(byteCount: 4_096, alignment: 1) { buffer -> String? in
            var bytes: [UInt8] = []
            while true {
                guard let count = try? FileDescriptor(rawValue: fd).read(into: buffer) else { return nil }
                if count == 0 { break }
                bytes += buffer[..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A file the kernel shows as one record (`cpu.stat`, `cgroup.events`, `memory.peak`,
    /// `memory.events`; not `cgroup.procs`, a record a process), in one read: a read that does
    /// not fill the buffer has the whole record. One read a file at each run's end, not two.
    static func readRecord(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Read whole unless it fails or fills the buffer (not from a cgroup's one-record file).
        return FileDescriptor(rawValue: fd).readWhole(capacity: 4_096) { String(decoding: $0, as: UTF8.self) } ?? read(path)
    }

    /// Writes `text` in one write(2), as the kernel takes a cgroup file's value; returns the errno
    /// of a failure.
    static func write(_ path: String, _ text: String) -> Int32? {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        return written == bytes.count ? nil : errno
    }

    /// An xattr's value (`trusted.delegate`), if the file has it.
    static func xattr(_ path: String, _ name: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { getxattr(path, name, $0.baseAddress, $0.count) }
        return count >= 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
    }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

import Glibc
import Testing

/// A Unix datagram socket the test owns, standing in for systemd's notify socket: bound to a path or
/// to an abstract address, and read without blocking (a datagram sent over AF_UNIX is queued before
/// `sendmsg` returns, so there is nothing to wait for).
final class NotifySocket {
    let fd: Int32
    /// The value for `NOTIFY_SOCKET`: the path, or `@name` for an abstract address.
    let address: String
    private let path: String?

    init(abstract: Bool) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        let name = "jobd-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8]
        if abstract {
            // A leading NUL makes the address abstract; NOTIFY_SOCKET spells it with '@'.
            bytes = [0] + Array(name.utf8)
            address = "@" + name
            path = nil
        } else {
            let filePath = "/tmp/\(name).sock"
            bytes = Array(filePath.utf8)
            address = filePath
            path = filePath
        }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let result = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        try #require(result == 0, "bind \(address): errno \(errno)")
    }

    /// The next datagram, or `nil` when none is queued.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    deinit {
        close(fd)
        if let path { unlink(path) }
    }
}

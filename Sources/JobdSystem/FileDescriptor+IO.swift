package import SystemPackage

extension FileDescriptor {
    /// Writes every byte of `bytes`, a write(2) after a partial one, an interrupted one again (as
    /// swift-system's `writeAll`); unlike `writeAll`, a write that takes nothing fails (EIO) rather
    /// than being tried again without end. Throws the errno of the write that failed.
    package func writeEvery(_ bytes: [UInt8]) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let written: Int
            do { written = try bytes[offset...].withUnsafeBytes { try write($0) } } catch { throw error as? Errno ?? .ioError }
            guard written > 0 else { throw .ioError }
            offset += written
        }
    }

    /// One read of a nonblocking descriptor into `buffer`, an interrupted one again: `nil` when it
    /// has nothing to read yet (EAGAIN), 0 at its end or when the read failed, else the bytes read.
    package func readAvailable(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        do { return try read(into: buffer) } catch Errno.wouldBlock { return nil } catch { return 0 }
    }

    /// One read(2) into a buffer of `capacity` bytes on the stack, handed to `body`: the whole of a
    /// kernel's short file (`/proc/PID/stat`), which gives all it has, up to the buffer's size, at
    /// its first read. `nil` when the read fails, or fills the buffer: the file may go on.
    package func readWhole<R>(capacity: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 1) { buffer in
            guard let count = try? read(into: buffer), count < capacity else { return nil }
            return body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }
}

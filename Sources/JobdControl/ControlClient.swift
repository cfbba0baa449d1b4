import Glibc

/// jobctl's end of the control socket: one request, then the responses as they come.
package final class ControlClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    static let listCapacity = 8 << 20

    /// Connects to the socket in `runtimeDirectory`.
    package init(runtimeDirectory: String) throws(ControlError) {
        let path = runtimeDirectory + "/" + ControlProtocol.socketName
        fd = try UnixStream.makeSocket()
        var (address, length) = try UnixStream.address(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            let code: ControlError.Code = (error == EACCES || error == EPERM) ? .refused : .noDaemon
            throw ControlError(code, "cannot connect to jobd at \(path): \(UnixStream.describe(error))", errno: error)
        }
    }

    deinit {
        close(fd)
    }

    package func send(_ request: ControlRequest) throws(ControlError) {
        guard UnixStream.sendAll(fd, request.jsonLine) else {
            let sendErrno = errno
            // jobd refuses a caller it does not allow as soon as it accepts, and hangs up; the send
            // can then fail before the refusal is read. The refusal says more than EPIPE.
            do { _ = try receive() } catch where error.code == .refused { throw error } catch {}
            throw ControlError(.protocolError, "cannot send the request to jobd: \(UnixStream.describe(sendErrno))", errno: sendErrno)
        }
    }

    /// The pid of the jobd that listens on the socket this client is connected to, as the kernel
    /// reports it (`SO_PEERCRED`): not what a pid file or a reply says.
    package var daemonPid: Int32? {
        UnixStream.peerCredentials(fd).flatMap { $0.pid > 0 ? $0.pid : nil }
    }

    /// The next response, or `nil` when jobd closed the connection; by `deadline`, if given, else
    /// ``ControlError/Code/timedOut``. An `error` response from jobd that refuses the caller is
    /// thrown as ``ControlError/Code/refused``.
    /// With `briefJobs`, a list's statuses may lack what a brief `list` leaves out.
    package func receive(deadline: ContinuousClock.Instant? = nil, briefJobs: Bool = false) throws(ControlError) -> ControlResponse? {
        switch UnixStream.readLine(fd, limit: 64 << 20, buffer: &buffer, deadline: deadline) {
        case .closed:
            return nil
        case .timedOut:
            throw ControlError(.timedOut, "jobd did not answer in time")
        case .failed(let error):
            throw ControlError(.protocolError, "reading from jobd failed: \(UnixStream.describe(error))", errno: error)
        case .tooLong:
            throw ControlError(.protocolError, "jobd's response is too large")
        case .line(let bytes):
            let response: ControlResponse
            do {
                response = try ControlResponse(jsonLine: bytes, briefJobs: briefJobs)
            } catch {
                throw ControlError(.protocolError, "jobd sent something that is not a response (\(error.message)): \(String(decoding: bytes.prefix(200), as: UTF8.self))")
            }
            if response.type == .error, response.code == .permissionDenied {
                throw ControlError(.refused, response.message ?? "jobd refused the request: permission denied")
            }
            return response
        }
    }

    /// Sends `request` and returns the first response.
    package func exchange(_ request: ControlRequest) throws(ControlError) -> ControlResponse {
        // A list is one line of megabytes (2.7 MB at 10,000 jobs): room for it at once, rather than
        // copies as it grows. Room never written to is never faulted in.
        if request.command == .list { buffer.reserveCapacity(Self.listCapacity) }
        try send(request)
        guard let response = try receive(briefJobs: request.brief == true) else {
            throw ControlError(.protocolError, "jobd closed the connection without answering")
        }
        return response
    }
}

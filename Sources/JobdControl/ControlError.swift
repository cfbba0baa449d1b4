/// A failure on the control socket, with the errno where there is one.
public struct ControlError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// No daemon answers at the socket (missing, refused, or its pid is gone).
        case noDaemon
        /// The daemon refused the caller.
        case refused
        /// The exchange broke off or made no sense.
        case protocolError
        /// The socket could not be set up.
        case setupFailed
        /// jobd did not answer by the deadline.
        case timedOut
    }

    public var code: Code
    public var errno: Int32?
    public var message: String

    public init(_ code: Code, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String { message }
}

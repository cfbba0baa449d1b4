/// A failure on the control socket, with the errno where there is one.
package struct ControlError: Error, Sendable, CustomStringConvertible {
    package enum Code: Sendable, Equatable {
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

    package var code: Code
    package var errno: Int32?
    package var message: String

    package init(_ code: Code, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    package var description: String { message }
}

import CSystemd
package import Glibc

/// The one error type of SystemdKit: what failed, the errno behind it when there is one, and the
/// context a user needs to act on it.
package struct SystemdError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Callers switch on it; the message is for people.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        package var description: String { name }

        /// `sd_notify` failed to reach the socket named by `NOTIFY_SOCKET`.
        package static let notifyFailed = Code("notifyFailed")
        /// `WATCHDOG_USEC`/`WATCHDOG_PID` could not be parsed.
        package static let watchdogInvalid = Code("watchdogInvalid")
        /// No journald is listening on `/run/systemd/journal/socket`.
        package static let journalUnreachable = Code("journalUnreachable")
        /// `sd_journal_sendv` failed although a journald socket was there.
        package static let journalSendFailed = Code("journalSendFailed")
        /// A journal field name is not `[A-Z0-9_]`, starts with `_` or a digit, or is longer than 64.
        package static let invalidFieldName = Code("invalidFieldName")
        /// Opening, matching, seeking or reading a journal failed.
        package static let journalReadFailed = Code("journalReadFailed")
        /// Reading or generating a 128-bit id failed.
        package static let idFailed = Code("idFailed")
    }

    /// What kind of failure this is.
    package let code: Code
    /// The errno libsystemd or the kernel reported, if any.
    package let errno: POSIXErrorCode?
    /// What was being done, with the names and values a user needs (a path, a field, a socket).
    package let context: String

    /// Makes an error; SystemdKit's own calls into libsystemd make theirs through one checked path.
    package init(_ code: Code, errno: POSIXErrorCode? = nil, context: String) {
        self.code = code
        self.errno = errno
        self.context = context
    }

    /// The context, the errno's text and number, and the code, for logs and people.
    package var description: String {
        guard let errno else { return "\(context) [\(code)]" }
        return "\(context): \(String(cString: strerror(errno.rawValue))) (errno \(errno.rawValue)) [\(code)]"
    }

    /// Converts a libsystemd return value (`>= 0` success, `-errno` failure) into a Swift result.
    /// Every call into libsystemd goes through here, so no return code is dropped or read twice.
    @discardableResult
    static func check(
        _ result: Int32, _ code: Code, _ context: @autoclosure () -> String
    ) throws(SystemdError) -> Int32 {
        guard result < 0 else { return result }
        throw SystemdError(code, errno: POSIXErrorCode(rawValue: -result), context: context())
    }
}

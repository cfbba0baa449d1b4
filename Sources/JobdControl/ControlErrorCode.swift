/// The kind of an `error` response, as its `code` field: a string, so that a client decodes codes
/// it does not know yet.
package struct ControlErrorCode: RawRepresentable, Codable, Sendable, Hashable {
    package var rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    /// The caller is not root or jobd's own user.
    package static let permissionDenied = ControlErrorCode(rawValue: "permission-denied")
    /// Every connection slot is taken; try again.
    package static let busy = ControlErrorCode(rawValue: "busy")
    /// The request is not one JSON object on one line, or too large.
    package static let badRequest = ControlErrorCode(rawValue: "bad-request")
    /// `user-save`: the job file has errors (the message lists them, with file and line).
    package static let invalidJob = ControlErrorCode(rawValue: "invalid-job")
    /// The request's protocol version is not this jobd's.
    package static let unsupportedVersion = ControlErrorCode(rawValue: "unsupported-version")
}

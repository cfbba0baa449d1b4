/// The one error type of JobdAudit: what could not be understood, and what was expected instead.
package struct AuditError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    package enum Code: String, Sendable, Hashable {
        /// A `--since`/`--until` value is none of the accepted forms.
        case invalidTime
        /// A boot id is not 32 hex digits.
        case invalidBootID
    }

    /// What kind of failure this is.
    package let code: Code
    /// The offending text and the forms that are accepted.
    package let context: String

    /// Makes an error.
    package init(_ code: Code, context: String) {
        self.code = code
        self.context = context
    }

    /// The context and the code, for people.
    package var description: String { "\(context) [\(code.rawValue)]" }
}

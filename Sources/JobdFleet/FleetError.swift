/// What went wrong between jobd and the fleet's database, in words an operator can act on.
package struct FleetError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// The password file is missing, unreadable or readable by others than root.
        case password
        /// TLS could not be set up (a CA file that cannot be read).
        case tls
        /// The connection could not be opened or broke.
        case connection
        /// An operation took longer than its bound.
        case timeout
        /// The schema is newer than this jobd knows, or could not be migrated.
        case schema
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}

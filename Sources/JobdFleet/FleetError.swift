/// What went wrong between jobd and the fleet's database, in words an operator can act on.
package struct FleetError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// The password file is missing, not a regular file, or readable by others than jobd's user.
        case password
        /// `Database=` is not a connection string libpq can use, or holds a password.
        case configuration
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

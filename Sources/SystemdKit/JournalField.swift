/// One field of a journal entry: a validated name and its value. Values may hold any text,
/// newlines included (libsystemd switches such fields to the binary form of the protocol).
public struct JournalField: Hashable, Sendable {
    public let name: JournalFieldName
    public let value: String

    public init(_ name: JournalFieldName, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Validates `name` and pairs it with `value`.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/invalidFieldName``.
    public init(_ name: String, _ value: String) throws(SystemdError) {
        self.init(try JournalFieldName(name), value)
    }
}

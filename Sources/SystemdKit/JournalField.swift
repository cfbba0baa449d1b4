/// One field of a journal entry: a validated name and its value. Values may hold any text,
/// newlines included (libsystemd switches such fields to the binary form of the protocol).
public struct JournalField: Hashable, Sendable {
    /// The field's name, valid for journald.
    public let name: JournalFieldName
    /// The field's value.
    public let value: String

    /// Pairs an already validated name with `value`.
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

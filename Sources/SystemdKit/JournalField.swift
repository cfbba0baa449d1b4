/// One field of a journal entry: a validated name and its value. Values may hold any text,
/// newlines included (libsystemd switches such fields to the binary form of the protocol).
package struct JournalField: Hashable, Sendable {
    /// The field's name, valid for journald.
    package let name: JournalFieldName
    /// The field's value.
    package let value: String

    /// Pairs an already validated name with `value`.
    package init(_ name: JournalFieldName, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Validates `name` and pairs it with `value`.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/invalidFieldName``.
    package init(_ name: String, _ value: String) throws(SystemdError) {
        self.init(try JournalFieldName(name), value)
    }
}

/// A journal field name that journald will store: only `A`–`Z`, `0`–`9` and `_`, not starting with
/// `_` (those are trusted fields journald sets itself) or a digit, and at most 64 characters.
/// journald silently drops fields with any other name, so names are checked before sending.
package struct JournalFieldName: Hashable, Sendable, CustomStringConvertible {
    /// The longest name journald accepts.
    package static let maximumLength = 64

    /// The validated name.
    package let rawValue: String

    /// Validates `name`.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/invalidFieldName`` saying what is wrong.
    package init(_ name: String) throws(SystemdError) {
        if let problem = Self.problem(with: name) {
            throw SystemdError(.invalidFieldName, context: "journal field name \(name.debugDescription) \(problem)")
        }
        rawValue = name
    }

    /// `name`, which ``isValid(_:)`` has already passed: not checked again.
    package init(checked name: String) {
        assert(Self.isValid(name), "\(name) is not a journal field name")
        rawValue = name
    }

    package var description: String { rawValue }

    /// Why journald would drop a field called `name`, or `nil` when the name is valid.
    package static func problem(with name: String) -> String? {
        let bytes = Array(name.utf8)
        guard let first = bytes.first else { return "is empty" }
        if bytes.count > maximumLength { return "is longer than \(maximumLength) characters" }
        if first == UInt8(ascii: "_") { return "starts with '_' (reserved for trusted fields)" }
        if isDigit(first) { return "starts with a digit" }
        if let bad = bytes.first(where: { !isAllowed($0) }) {
            return "contains \(String(decoding: [bad], as: UTF8.self).debugDescription); only A-Z, 0-9 and _ are allowed"
        }
        return nil
    }

    /// Whether journald stores a field called `name`.
    package static func isValid(_ name: String) -> Bool { problem(with: name) == nil }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || isDigit(byte) || byte == UInt8(ascii: "_")
    }
}

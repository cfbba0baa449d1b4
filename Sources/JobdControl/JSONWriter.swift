/// Writes JSON into a byte buffer, as Foundation's `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` writes it (`.prettyPrinted` too, when `pretty`), byte for byte: control
/// characters as `\b \f \n \r \t` or `\u00xx`, everything else as it is. The caller writes each
/// object's keys in sorted order and leaves out absent optionals, as the synthesized `Encodable` does.
///
/// jobd's one JSON writer: the control protocol both ways, `jobctl`'s `--json` output, `logs -o
/// json` and the audit's report all go through it (issue 30); `Codable` is only the tests' reference.
///
/// Why not `JSONEncoder`: at 10,000 jobs it took about 300 ms for the list reply (and as much
/// again for `jobctl list --json`); this takes a few (issue 19).
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    private let pretty: Bool
    /// One entry per open object or array: whether it has a member yet.
    private var containers: [Bool] = []

    package init(pretty: Bool = false, capacity: Int = 256) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    package mutating func beginObject() { open(UInt8(ascii: "{")) }
    package mutating func endObject() { close(UInt8(ascii: "}")) }
    package mutating func beginArray() { open(UInt8(ascii: "[")) }
    package mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Elements of an array that is opened and closed elsewhere: written with the commas between
    /// them but without the brackets, so that parts written apart (on several threads) can be
    /// joined into one array (``raw(_:)`` each part). Only for a writer that is not pretty.
    package mutating func beginElements() {
        precondition(!pretty, "JSONWriter.beginElements: a pretty writer cannot indent parts written apart")
        containers.append(false)
    }

    package mutating func endElements() { containers.removeLast() }

    /// An object member's key; its value follows.
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        append(name)
        append(pretty ? "\" : " : "\":")
        keyed = true
    }

    /// An object member's key that is known only when it is written (a journal field's name);
    /// its value follows. Escaped as a string value is.
    package mutating func key(_ name: String) {
        string(name)
        append(pretty ? " : " : ":")
        keyed = true
    }

    package mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                // `/` as it is (JSONEncoder's `.withoutEscapingSlashes`): paths read as paths.
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    append("u00")
                    append(Self.hexDigits[Int(byte >> 4)])
                    append(Self.hexDigits[Int(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func integer<Value: FixedWidthInteger>(_ value: Value) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude's digits, last first, then reversed in place: no String per number.
        var magnitude = value.magnitude
        let first = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude != 0
        bytes[first...].reverse()
    }

    package mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
    }

    /// Hands over the bytes written so far and goes on writing where they end, into the same
    /// memory: a long text written out in pieces never has all of it in memory (and its pages
    /// faulted in) at once.
    package mutating func takeBytes(_ body: ([UInt8]) -> Void) {
        body(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// A newline after the value: one line of JSON lines, or the end of a text file.
    package mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A value already encoded compactly (a part written by another writer); only for a writer
    /// that is not pretty, since the value keeps its own layout.
    package mutating func raw(_ encoded: some Sequence<UInt8>) {
        precondition(!pretty, "JSONWriter.raw: a pretty writer cannot indent an encoded value")
        separate()
        bytes.append(contentsOf: encoded)
    }

    // MARK: Layout

    private static let hexDigits: [StaticString] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Set by `key`: the value that follows is not a new member.
    private var keyed = false

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        containers.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let hadMembers = containers.removeLast()
        if pretty {
            bytes.append(UInt8(ascii: "\n"))
            if !hadMembers { bytes.append(UInt8(ascii: "\n")) }
            indent()
        }
        bytes.append(bracket)
    }

    /// Before a key, or a value that is not a key's: the comma and (pretty) the new line and indent.
    private mutating func separate() {
        if keyed {
            keyed = false
            return
        }
        guard let hasMembers = containers.last else { return }
        if hasMembers { bytes.append(UInt8(ascii: ",")) }
        containers[containers.count - 1] = true
        if pretty {
            bytes.append(UInt8(ascii: "\n"))
            indent()
        }
    }

    private mutating func indent() {
        var spaces = 2 * containers.count
        while spaces > 0 {
            let run = min(spaces, Self.spaces.utf8CodeUnitCount)
            Self.spaces.withUTF8Buffer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<run])) }
            spaces -= run
        }
    }

    /// Indentation, appended from here rather than a space at a time.
    private static let spaces: StaticString = "                                "
}

extension JSONWriter {
    /// An array of strings.
    package mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// A member whose value writes itself.
    package mutating func value(_ key: StaticString, _ value: some JSONWritable) {
        self.key(key)
        value.write(to: &self)
    }

    /// A member whose value writes itself, unless it is `nil`.
    package mutating func optionalValue(_ key: StaticString, _ value: (some JSONWritable)?) {
        guard let value else { return }
        self.value(key, value)
    }

    /// A member whose value is an array of values that write themselves.
    package mutating func array(_ key: StaticString, _ values: [some JSONWritable]) {
        self.key(key)
        beginArray()
        for value in values { value.write(to: &self) }
        endArray()
    }

    /// A member: its key, then its value.
    package mutating func string(_ key: StaticString, _ value: String) {
        self.key(key)
        string(value)
    }

    package mutating func integer<Value: FixedWidthInteger>(_ key: StaticString, _ value: Value) {
        self.key(key)
        integer(value)
    }

    package mutating func bool(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bool(value)
    }

    package mutating func strings(_ key: StaticString, _ values: [String]) {
        self.key(key)
        strings(values)
    }

    /// A member, unless `value` is `nil` (as the synthesized `Encodable` leaves it out).
    package mutating func optionalString(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    package mutating func optionalInteger<Value: FixedWidthInteger>(_ key: StaticString, _ value: Value?) {
        guard let value else { return }
        self.key(key)
        integer(value)
    }

    package mutating func optionalBool(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        bool(value)
    }

    /// A member whose value is an array of strings, unless `values` is `nil`.
    package mutating func optionalStrings(_ key: StaticString, _ values: [String]?) {
        guard let values else { return }
        self.key(key)
        strings(values)
    }
}

/// A value that writes itself as JSON, through ``JSONWriter``: one object, keys sorted.
package protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}


/// Reads one JSON text from bytes, value by value, for decoders written by hand: the caller asks for
/// what it expects (an object's members, a string, an integer), and anything else is an error
/// naming the byte where it went wrong. Unknown members can be skipped, or kept as their bytes.
///
/// Why not `JSONDecoder`: at 10,000 jobs it took about 350 ms to decode the list reply; this takes
/// a few (issue 19). It is jobd's one JSON reader: both ends of the control protocol read through
/// it (issue 30).
package struct JSONReader {
    package let bytes: [UInt8]
    package private(set) var position = 0
    /// Nested arrays and objects deeper than this are refused rather than skipped (recursion).
    static let maximumDepth = 512

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Each member of an object, in order: `body` gets the key and must read (or skip) the value.
    ///
    /// A key that comes twice in one object is an error: which of its values counts would be a
    /// guess (RFC 8259 leaves it open, and readers differ). Keys in increasing order, as jobd
    /// writes them, cost one comparison each to check; only an object whose keys are out of order
    /// has its keys gathered into a set.
    package mutating func members(_ body: (inout JSONReader, JSONKey) throws(ControlError) -> Void) throws(ControlError) {
        try expect(UInt8(ascii: "{"))
        let firstMember = position
        if try peek() == UInt8(ascii: "}") {
            position += 1
            return
        }
        var previous: JSONKey?
        var seen: Set<String>?
        repeat {
            guard try peek() == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let keyStart = position
            let key = try self.key()
            if seen != nil {
                guard seen!.insert(key.description).inserted else { throw failure(at: keyStart, "the key \"\(key)\" a second time") }
            } else if let previous, !previous.precedes(key) {
                var keys = try Self.keys(bytes, from: firstMember, to: keyStart)
                guard keys.insert(key.description).inserted else { throw failure(at: keyStart, "the key \"\(key)\" a second time") }
                seen = keys
            }
            previous = key
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
        } while try separator(closing: UInt8(ascii: "}"))
    }

    /// A key: its bytes as they are when it has no escape (nearly always), else unescaped.
    private mutating func key() throws(ControlError) -> JSONKey {
        let start = position + 1
        let (end, ascii) = plainRun(from: start)
        if end < bytes.count, bytes[end] == UInt8(ascii: "\""), ascii {
            position = end + 1
            return JSONKey(bytes: bytes[start..<end])
        }
        return JSONKey(bytes: Array(try string().utf8)[...])
    }

    /// Where the bytes from `start` stop being plain (a quote, a backslash, a control character or
    /// the end), and whether the plain ones are all ASCII: the fast path of every key and string.
    /// Scanned through a pointer: a list of 10,000 jobs has some 100,000 strings (issue 19).
    private func plainRun(from start: Int) -> (end: Int, ascii: Bool) {
        bytes.withUnsafeBufferPointer { buffer in
            var index = start, bits: UInt8 = 0
            while index < buffer.count, case let byte = buffer[index], byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 {
                bits |= byte
                index += 1
            }
            return (index, bits < 0x80)
        }
    }

    /// The keys of an object's members that start from `start` (after its `{`) and before `end`:
    /// members already read once, so reading them again cannot fail.
    private static func keys(_ bytes: [UInt8], from start: Int, to end: Int) throws(ControlError) -> Set<String> {
        var reader = JSONReader(bytes)
        reader.position = start
        var keys: Set<String> = []
        while try reader.peek() == UInt8(ascii: "\""), reader.position < end {
            keys.insert(try reader.string())
            try reader.expect(UInt8(ascii: ":"))
            try reader.skipValue()
            guard try reader.peek() == UInt8(ascii: ",") else { break }
            reader.position += 1
        }
        return keys
    }

    /// Each element of an array, in order: `body` must read (or skip) it.
    package mutating func elements(_ body: (inout JSONReader) throws(ControlError) -> Void) throws(ControlError) {
        try expect(UInt8(ascii: "["))
        if try peek() == UInt8(ascii: "]") {
            position += 1
            return
        }
        repeat {
            try body(&self)
        } while try separator(closing: UInt8(ascii: "]"))
    }

    /// An array whose elements `element` reads. With `minimumElementBytes` (the shortest text an
    /// element can have), room for as many elements as the rest of the text could hold is reserved
    /// at once: for a large array, that saves growing it again and again, and the room never used
    /// costs no memory (pages never written are never mapped).
    package mutating func array<Element>(
        minimumElementBytes: Int? = nil, _ element: (inout JSONReader) throws(ControlError) -> Element
    ) throws(ControlError) -> [Element] {
        var values: [Element] = []
        if let minimumElementBytes { values.reserveCapacity((bytes.count - position) / max(minimumElementBytes, 1)) }
        try elements { (reader: inout JSONReader) throws(ControlError) in values.append(try element(&reader)) }
        return values
    }

    /// `nil` for `null` (which is read), else what `read` reads.
    package mutating func optional<Value>(_ read: (inout JSONReader) throws(ControlError) -> Value) throws(ControlError) -> Value? {
        if try peek() == UInt8(ascii: "n") {
            try literal("null")
            return nil
        }
        return try read(&self)
    }

    package mutating func string() throws(ControlError) -> String {
        try expect(UInt8(ascii: "\""))
        let start = position
        // Fast path: no escapes, so the bytes are the string (ASCII needs no UTF-8 check).
        let (end, ascii) = plainRun(from: start)
        position = end
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            position += 1
            return ascii ? String(decoding: bytes[start..<end], as: UTF8.self) : try utf8(bytes[start..<end], at: start)
        }
        if end < bytes.count, bytes[end] < 0x20 { throw failure("a control character in a string") }
        var unescaped = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try utf8(unescaped[...], at: start)
            case UInt8(ascii: "\\"):
                try unescape(into: &unescaped)
            case ..<0x20:
                position -= 1
                throw failure("a control character in a string")
            default:
                unescaped.append(byte)
            }
        }
        throw failure("an unterminated string")
    }

    /// An integer of `Value`'s range, written without a fraction or exponent.
    package mutating func integer<Value: FixedWidthInteger>(_ type: Value.Type = Value.self) throws(ControlError) -> Value {
        skipWhitespace()
        let start = position
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var value: Value = 0
        var digits = 0
        while position < bytes.count, case let digit = bytes[position] &- UInt8(ascii: "0"), digit < 10 {
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times10.subtractingReportingOverflow(Value(digit)) : times10.addingReportingOverflow(Value(digit))
            guard !overflow, !overflow2 else {
                position = start
                throw failure("an integer out of the range of \(Value.self)")
            }
            value = next
            digits += 1
            position += 1
        }
        guard digits > 0 else {
            position = start
            throw failure("expected an integer")
        }
        if position < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[position]) {
            position = start
            throw failure("expected an integer, not a fraction")
        }
        return value
    }

    package mutating func bool() throws(ControlError) -> Bool {
        if try peek() == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// Skips one value of any kind; returns its bytes' range (in ``bytes``).
    @discardableResult
    package mutating func skipValue() throws(ControlError) -> Range<Int> {
        try skipValue(depth: 0)
    }

    /// After the value: nothing but whitespace may follow.
    package mutating func end() throws(ControlError) {
        skipWhitespace()
        guard position == bytes.count else { throw failure("expected the end of the text") }
    }

    // MARK: Parts

    private mutating func skipValue(depth: Int) throws(ControlError) -> Range<Int> {
        guard depth < Self.maximumDepth else { throw failure("more than \(Self.maximumDepth) nested arrays or objects") }
        let first = try peek()
        let start = position
        switch first {
        case UInt8(ascii: "{"):
            try members { (reader: inout JSONReader, _: JSONKey) throws(ControlError) in _ = try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            try elements { (reader: inout JSONReader) throws(ControlError) in _ = try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try bool()
        case UInt8(ascii: "n"):
            try literal("null")
        default:
            try skipNumber()
        }
        return start..<position
    }

    /// A number as JSON allows it: `-`? digits (`.` digits)? (`e` sign? digits)?
    private mutating func skipNumber() throws(ControlError) {
        let start = position
        func digits(_ reader: inout JSONReader) -> Int {
            let from = reader.position
            while reader.position < reader.bytes.count, reader.bytes[reader.position] &- UInt8(ascii: "0") < 10 { reader.position += 1 }
            return reader.position - from
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        var valid = digits(&self) > 0
        if valid, position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            valid = digits(&self) > 0
        }
        if valid, position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            valid = digits(&self) > 0
        }
        guard valid else {
            position = start
            throw failure("expected a value")
        }
    }

    /// After a backslash: appends the character it stands for.
    private mutating func unescape(into unescaped: inout [UInt8]) throws(ControlError) {
        guard position < bytes.count else { throw failure("an unterminated string") }
        let escaped = bytes[position]
        position += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escaped)
        case UInt8(ascii: "b"): unescaped.append(0x08)
        case UInt8(ascii: "f"): unescaped.append(0x0C)
        case UInt8(ascii: "n"): unescaped.append(0x0A)
        case UInt8(ascii: "r"): unescaped.append(0x0D)
        case UInt8(ascii: "t"): unescaped.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate: a low one must follow, as `\uDC00`…`\uDFFF`.
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw failure("an unpaired surrogate in a string")
                }
                position += 2
                let low = try hexQuad()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("an unpaired surrogate in a string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("an unpaired surrogate in a string")
            }
            UTF8.encode(Unicode.Scalar(scalar)!) { unescaped.append($0) }
        default:
            position -= 1
            throw failure("an invalid escape in a string")
        }
    }

    private mutating func hexQuad() throws(ControlError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < bytes.count, let digit = Self.hexValue(bytes[position]) else { throw failure("expected four hex digits after \\u") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private mutating func literal(_ word: StaticString) throws(ControlError) {
        skipWhitespace()
        let matches = word.withUTF8Buffer { word in
            position + word.count <= bytes.count && bytes[position..<(position + word.count)].elementsEqual(word)
        }
        guard matches else { throw failure("expected \(word)") }
        position += word.utf8CodeUnitCount
    }

    /// After an element or member: `true` after a comma (another follows), `false` after `closing`.
    private mutating func separator(closing: UInt8) throws(ControlError) -> Bool {
        switch try peek() {
        case UInt8(ascii: ","):
            position += 1
            return true
        case closing:
            position += 1
            return false
        default:
            throw failure("expected , or \(Character(Unicode.Scalar(closing)))")
        }
    }

    private mutating func expect(_ byte: UInt8) throws(ControlError) {
        guard try peek() == byte else { throw failure("expected \(Character(Unicode.Scalar(byte)))") }
        position += 1
    }

    /// The next byte that is not whitespace (not read).
    private mutating func peek() throws(ControlError) -> UInt8 {
        skipWhitespace()
        guard position < bytes.count else { throw failure("unexpected end of the text") }
        return bytes[position]
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }

    private func failure(_ what: String) -> ControlError {
        failure(at: position, what)
    }

    private func failure(at offset: Int, _ what: String) -> ControlError {
        ControlError(.protocolError, "invalid JSON at byte \(offset): \(what)")
    }

    /// A string's bytes as text: JSON is UTF-8, and bytes that are not are an error rather than
    /// replaced (a reader that replaced them would read two different strings as one).
    private func utf8(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(ControlError) -> String {
        // ASCII, nearly every string jobd sends, is UTF-8 as it is: no validation to pay for.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw failure(at: offset, "a string that is not UTF-8") }
        return text
    }
}

extension JSONReader {
    package mutating func strings() throws(ControlError) -> [String] {
        try array { (reader: inout JSONReader) throws(ControlError) in try reader.string() }
    }

    package mutating func optionalString() throws(ControlError) -> String? {
        try optional { (reader: inout JSONReader) throws(ControlError) in try reader.string() }
    }

    package mutating func optionalInteger<Value: FixedWidthInteger>() throws(ControlError) -> Value? {
        try optional { (reader: inout JSONReader) throws(ControlError) -> Value in try reader.integer() }
    }

    package mutating func optionalBool() throws(ControlError) -> Bool? {
        try optional { (reader: inout JSONReader) throws(ControlError) in try reader.bool() }
    }

    package mutating func optionalStrings() throws(ControlError) -> [String]? {
        try optional { (reader: inout JSONReader) throws(ControlError) in try reader.strings() }
    }
}

import Glibc

/// An object member's key as ``JSONReader`` read it: its bytes, unescaped, without a `String`
/// made for it. A `switch` matches it against string literals (`case "name":`) byte for byte.
///
/// Why: at 10,000 jobs a list reply has some 150,000 keys, and making a `String` of each, then
/// comparing it with each `case` in turn, was a fifth of reading the reply (issue 19).
package struct JSONKey: CustomStringConvertible {
    /// The key's UTF-8 bytes: a slice of the text, or of its unescaped copy.
    let bytes: ArraySlice<UInt8>

    package var description: String { String(decoding: bytes, as: UTF8.self) }

    package static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
        pattern.withUTF8Buffer { pattern in
            guard pattern.count == key.bytes.count else { return false }
            return pattern.isEmpty || key.bytes.withUnsafeBufferPointer { memcmp(pattern.baseAddress!, $0.baseAddress!, pattern.count) == 0 }
        }
    }

    /// Whether this key comes before `other` in the order of their bytes: keys written in this
    /// order cannot repeat.
    func precedes(_ other: JSONKey) -> Bool {
        bytes.withUnsafeBufferPointer { mine in
            other.bytes.withUnsafeBufferPointer { theirs in
                let common = min(mine.count, theirs.count)
                let order = common == 0 ? 0 : memcmp(mine.baseAddress!, theirs.baseAddress!, common)
                return order < 0 || (order == 0 && mine.count < theirs.count)
            }
        }
    }
}

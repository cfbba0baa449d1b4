/// The ASCII bytes the parsers of job files act on (every other byte of UTF-8 text passes through).
extension UInt8 {
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let newline = UInt8(ascii: "\n")
    static let doubleQuote = UInt8(ascii: "\"")
    static let singleQuote = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
    static let dollar = UInt8(ascii: "$")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    package static let underscore = UInt8(ascii: "_")

    package var isASCIILetter: Bool { (self | 0x20) >= UInt8(ascii: "a") && (self | 0x20) <= UInt8(ascii: "z") }
    package var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }

    /// The value of a hexadecimal digit, any case.
    var hexValue: UInt32? {
        if isASCIIDigit { return UInt32(self - UInt8(ascii: "0")) }
        let lower = self | 0x20
        return lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f") ? UInt32(lower - UInt8(ascii: "a") + 10) : nil
    }
}

import Foundation

/// The shape of jobd's sources, as issue 37 bounds it: how many lines each module has, and how long
/// each function is. Read from the files as text, with comments and string literals blanked out so
/// that a brace in a string or a `func` in a comment does not count.
struct SourceShape {
    /// One function (or initializer, deinitializer, subscript) with a body.
    struct Function: Equatable {
        var file: String
        var name: String
        var line: Int
        var lines: Int
    }

    /// The lines of `.swift`, `.c` and `.h` files below each directory of `sources`, by module name.
    static func moduleLines(sources: String) throws -> [String: Int] {
        var lines: [String: Int] = [:]
        for module in try FileManager.default.contentsOfDirectory(atPath: sources) {
            for file in try sourceFiles(in: sources + "/" + module, extensions: ["swift", "c", "h"]) {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                lines[module, default: 0] += text.utf8.count { $0 == UInt8(ascii: "\n") }
            }
        }
        return lines
    }

    /// Every Swift function below `sources` with its length in lines, from its keyword's line to
    /// its closing brace's, as `wc -l` would count that stretch.
    static func functions(sources: String) throws -> [Function] {
        try sourceFiles(in: sources, extensions: ["swift"]).flatMap { file in
            functions(in: try String(contentsOfFile: file, encoding: .utf8), file: String(file.dropFirst(sources.count + 1)))
        }
    }

    static func functions(in text: String, file: String) -> [Function] {
        let code = Array(blankingCommentsAndStrings(text).utf8)
        // The line of each byte, counted once rather than per function.
        var lineOf = [Int](repeating: 1, count: code.count + 1)
        for (offset, byte) in code.enumerated() { lineOf[offset + 1] = lineOf[offset] + (byte == UInt8(ascii: "\n") ? 1 : 0) }
        var found: [Function] = []
        var index = 0
        while index < code.count {
            guard let (keyword, name) = declaration(at: index, in: code), let open = body(after: index + keyword, in: code),
                let close = matchingBrace(open, in: code)
            else {
                index += 1
                continue
            }
            found.append(Function(file: file, name: name, line: lineOf[index], lines: lineOf[close] - lineOf[index] + 1))
            index += keyword
        }
        return found
    }

    private static func sourceFiles(in directory: String, extensions: Set<String>) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        return walker.compactMap { $0 as? String }.filter { extensions.contains(($0 as NSString).pathExtension) }.sorted()
            .map { directory + "/" + $0 }
    }

    /// The keyword's length and the function's name when a declaration keyword starts at `index`.
    private static func declaration(at index: Int, in code: [UInt8]) -> (Int, String)? {
        func isIdentifier(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "_") || byte.isLetterOrDigit }
        guard "fids".utf8.contains(code[index]) else { return nil }  // the keywords' first letters: most bytes stop here
        if index > 0, isIdentifier(code[index - 1]) || code[index - 1] == UInt8(ascii: ".") { return nil }
        for keyword in ["func", "init", "deinit", "subscript"] {
            let bytes = Array(keyword.utf8)
            guard code.count >= index + bytes.count, Array(code[index..<index + bytes.count]) == bytes else { continue }
            let after = index + bytes.count
            if after < code.count, isIdentifier(code[after]) { continue }
            guard keyword == "func" else { return (bytes.count, keyword) }
            var start = after
            while start < code.count, code[start] == UInt8(ascii: " ") { start += 1 }
            var end = start
            while end < code.count, isIdentifier(code[end]) || "+-*/<>=!&|^%~".utf8.contains(code[end]) { end += 1 }
            return (bytes.count, String(decoding: code[start..<end], as: UTF8.self))
        }
        return nil
    }

    /// Where the body's `{` is, past the signature (its parentheses, generics and clauses), or nil
    /// for a declaration without one (a protocol's requirement): the signature ends at a `}`, or at
    /// a line that starts another declaration.
    private static func body(after index: Int, in code: [UInt8]) -> Int? {
        var depth = 0
        var position = index
        while position < code.count {
            switch code[position] {
            case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: "{") where depth == 0: return position
            case UInt8(ascii: "}") where depth == 0: return nil
            case UInt8(ascii: "\n") where depth == 0:
                var next = position + 1
                while next < code.count, code[next] == UInt8(ascii: " ") { next += 1 }
                let rest = String(decoding: code[next..<min(code.count, next + 12)], as: UTF8.self)
                let continuations = ["->", "throws", "async", "rethrows", "where", "{", "}"]
                if !continuations.contains(where: rest.hasPrefix), !rest.hasPrefix(")") { return nil }
            default: break
            }
            position += 1
        }
        return nil
    }

    private static func matchingBrace(_ open: Int, in code: [UInt8]) -> Int? {
        var depth = 0
        for position in open..<code.count {
            if code[position] == UInt8(ascii: "{") { depth += 1 }
            if code[position] == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return position }
            }
        }
        return nil
    }

    /// `text` with every comment and every string literal's text replaced by spaces (newlines
    /// kept, so lines still count); a string's interpolations stay code.
    static func blankingCommentsAndStrings(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var index = 0
        // For each string being read: how many `"` close it, and how many `#` follow them.
        var strings: [(quotes: Int, hashes: Int, parens: Int)] = []
        func at(_ offset: Int, _ scalar: Unicode.Scalar) -> Bool {
            index + offset < bytes.count && bytes[index + offset] == UInt8(ascii: scalar)
        }
        func blank(_ count: Int) {
            for offset in 0..<count where index + offset < bytes.count && bytes[index + offset] != UInt8(ascii: "\n") {
                bytes[index + offset] = UInt8(ascii: " ")
            }
            index += count
        }
        while index < bytes.count {
            if let string = strings.last, string.parens == 0 {
                // Inside a string's text.
                let closing = String(repeating: "\"", count: string.quotes) + String(repeating: "#", count: string.hashes)
                if bytes[index...].starts(with: closing.utf8) {
                    strings.removeLast()
                    index += closing.utf8.count
                } else if bytes[index...].starts(with: ("\\" + String(repeating: "#", count: string.hashes) + "(").utf8) {
                    strings[strings.count - 1].parens = 1
                    index += string.hashes + 2
                } else if at(0, "\\") && string.hashes == 0 {
                    blank(2)
                } else {
                    blank(1)
                }
                continue
            }
            if at(0, "/") && at(1, "/") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { blank(1) }
            } else if at(0, "/") && at(1, "*") {
                var depth = 0
                repeat {
                    if at(0, "/") && at(1, "*") { depth += 1; blank(2) } else if at(0, "*") && at(1, "/") { depth -= 1; blank(2) } else { blank(1) }
                } while depth > 0 && index < bytes.count
            } else if at(0, "#") || at(0, "\"") {
                var hashes = 0
                while at(hashes, "#") { hashes += 1 }
                guard at(hashes, "\"") else {
                    index += max(hashes, 1)
                    continue
                }
                let quotes = at(hashes + 1, "\"") && at(hashes + 2, "\"") ? 3 : 1
                strings.append((quotes, hashes, 0))
                index += hashes + quotes
            } else {
                if !strings.isEmpty {
                    // Code inside an interpolation: count its parentheses to find its end.
                    if at(0, "(") { strings[strings.count - 1].parens += 1 }
                    if at(0, ")") { strings[strings.count - 1].parens -= 1 }
                }
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension UInt8 {
    fileprivate var isLetterOrDigit: Bool {
        (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z")) || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
            || (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9")) || self >= 0x80
    }
}

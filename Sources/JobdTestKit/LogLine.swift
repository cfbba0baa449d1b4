import Foundation

/// One readable log line of jobd (`ReadableLogHandler`'s format):
/// `DATE TIME jobd[PID] <LEVEL> [JOB:] [EVENT] KEY=VALUE… — MESSAGE`, values quoted when needed.
package struct LogLine: Sendable, CustomStringConvertible {
    package var text: String
    package private(set) var level: String?
    package private(set) var message: String = ""
    package private(set) var fields: [String: String] = [:]

    package init(_ text: String) {
        self.text = text
        let (head, message) = Self.splitMessage(text)
        self.message = message
        var tokens = Self.tokens(head)[...]
        guard tokens.count >= 4 else { return }
        tokens = tokens.dropFirst(3)  // date, time, identifier[pid]
        if let first = tokens.first, first.hasPrefix("<"), first.hasSuffix(">") {
            level = String(first.dropFirst().dropLast())
            tokens = tokens.dropFirst()
        }
        if let first = tokens.first, first.hasSuffix(":"), !first.contains("=") {
            fields["JOB"] = String(first.dropLast())
            tokens = tokens.dropFirst()
        }
        if let first = tokens.first, !first.contains("=") {
            fields["JOBD_EVENT"] = first
            tokens = tokens.dropFirst()
        }
        for token in tokens {
            guard let equals = token.firstIndex(of: "=") else { continue }
            fields[String(token[..<equals])] = String(token[token.index(after: equals)...])
        }
    }

    package func field(_ key: String) -> String? { fields[key] }

    package func matches(event kind: String, fields wanted: [String: String]) -> Bool {
        fields["JOBD_EVENT"] == kind && wanted.allSatisfy { fields[$0.key] == $0.value }
    }

    package var description: String { text }

    private static func splitMessage(_ text: String) -> (Substring, String) {
        guard let range = text.range(of: " — ") else { return (Substring(text), "") }
        return (text[..<range.lowerBound], String(text[range.upperBound...]))
    }

    /// Space-separated tokens; a double-quoted value keeps its spaces, with C escapes undone.
    private static func tokens(_ head: Substring) -> [String] {
        var tokens: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in head {
            if escaped {
                current.append(character == "n" ? "\n" : character == "t" ? "\t" : character)
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == " " && !quoted {
                if !current.isEmpty { tokens.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}

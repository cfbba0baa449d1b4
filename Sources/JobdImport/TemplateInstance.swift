/// A unit instantiated from a template, as systemd does it (systemd.unit(5), "Specifiers"):
/// `pg_dump@15-main.timer` is `pg_dump@.timer` with `%i` as `15-main`. `jobctl import timer` reads
/// the template when no unit file of the instance's own name exists, and expands the instance's
/// specifiers in it; the other specifiers stay as they are (and are reported, as ever).
package struct TemplateInstance: Sendable, Equatable {
    /// `pg_dump`: the name before `@`.
    package var prefix: String
    /// `15-main`: the instance, as written in the unit's name (escaped).
    package var instance: String
    /// `timer` or `service`.
    package var suffix: String

    /// The instance unit named `unitName` (`pg_dump@15-main.timer`); `nil` for a unit that is not one.
    package init?(unitName: String) {
        guard let at = unitName.firstIndex(of: "@"), let dot = unitName.lastIndex(of: "."), at < dot else { return nil }
        prefix = String(unitName[..<at])
        instance = String(unitName[unitName.index(after: at)..<dot])
        suffix = String(unitName[unitName.index(after: dot)...])
        guard !prefix.isEmpty, !instance.isEmpty, !suffix.isEmpty else { return nil }
    }

    /// `pg_dump@.timer`: the template's file name.
    package var templateName: String { prefix + "@." + suffix }
    /// `pg_dump@15-main.timer`.
    package var unitName: String { prefix + "@" + instance + "." + suffix }

    /// The same instance of another unit type (`pg_dump@15-main.service` for the timer's service).
    package func with(suffix: String) -> TemplateInstance {
        var other = self
        other.suffix = suffix
        return other
    }

    /// `text` with `%i`, `%I`, `%n`, `%N`, `%p` and `%P` replaced by this instance's values; `%%`
    /// and every other specifier are left as they are.
    package func expand(_ text: String) -> String {
        var result = ""
        var characters = text.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                result.append(character)
                continue
            }
            guard let specifier = characters.next() else {
                result.append(character)
                break
            }
            switch specifier {
            case "i": result += instance
            case "I": result += Self.unescape(instance)
            case "n": result += unitName
            case "N": result += prefix + "@" + instance
            case "p": result += prefix
            case "P": result += Self.unescape(prefix)
            default: result += "%" + String(specifier)
            }
        }
        return result
    }

    /// systemd's unescaping of a unit name part (`systemd-escape --unescape`): `-` is `/`, `\xNN` the byte NN.
    static func unescape(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "-") {
                bytes.append(UInt8(ascii: "/"))
            } else if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count, utf8[index + 1] == UInt8(ascii: "x"),
                      let byte = UInt8(String(decoding: utf8[(index + 2)...(index + 3)], as: UTF8.self), radix: 16) {
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(utf8[index])
            }
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The value of `--boot`/`-b`, as journalctl reads it: a boot id, an offset, or both.
///
/// An offset counts as journalctl's does, in the boots a journal holds, oldest first: `1` is the
/// first boot, `2` the second; `0` the last, `-1` the one before it. `ID+N`/`ID-N` count from that
/// boot. Without a value, the current boot.
package enum BootSelector: Sendable, Hashable {
    case current
    case offset(Int)
    case id(String, offset: Int)

    /// Why a selector names no boot.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        package var description: String
    }

    /// Reads a descriptor; `nil` when `text` is not one (then it is no value of `--boot`).
    package init?(_ text: String) {
        if text.isEmpty || text == Self.currentWord {
            self = .current
            return
        }
        if let offset = Self.offset(text[...]) {
            self = .offset(offset)
            return
        }
        let id = String(text.prefix(32)).lowercased()
        guard id.count == 32, id.allSatisfy(\.isHexDigit) else { return nil }
        let rest = text.dropFirst(32)
        if rest.isEmpty {
            self = .id(id, offset: 0)
        } else if rest.first == "+" || rest.first == "-", let offset = Self.offset(rest) {
            self = .id(id, offset: offset)
        } else {
            return nil
        }
    }

    private static func offset(_ text: Substring) -> Int? {
        let digits = text.first == "+" || text.first == "-" ? text.dropFirst() : text
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return text.first == "-" ? -Int(digits)! : Int(digits)!
    }

    /// The boot id this selects among `boots` (ids, oldest first); `current` is this machine's boot.
    package func resolve(boots: [String], current: String) throws(Failure) -> String {
        switch self {
        case .current:
            return current
        case .offset(let offset):
            let index = offset > 0 ? offset - 1 : boots.count - 1 + offset
            guard boots.indices.contains(index) else {
                throw Failure(description: "no boot \(offset) in the journal: it holds \(boots.count) boot(s) "
                    + "(1 is the first, 0 the last, -1 the one before it)")
            }
            return boots[index]
        case .id(let id, let offset):
            if offset == 0 { return id }
            guard let start = boots.firstIndex(of: id) else {
                throw Failure(description: "boot \(id) is not in the journal")
            }
            guard boots.indices.contains(start + offset) else {
                throw Failure(description: "no boot \(offset) from \(id) in the journal")
            }
            return boots[start + offset]
        }
    }

    /// What `-b` without a value becomes for the argument parser, which takes no empty value.
    static let currentWord = "current"

    /// Rewrites `-b [VALUE]` and `--boot [VALUE]` into `--boot=VALUE` (`--boot=current` when none
    /// follows), as journalctl takes the next word only when it is a boot descriptor. Without this,
    /// the argument parser would read `-1` as an option.
    package static func normalize(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                result += arguments[(index - 1)...]
                break
            }
            guard argument == "-b" || argument == "--boot" else {
                result.append(argument)
                continue
            }
            if index < arguments.endIndex, !arguments[index].isEmpty, BootSelector(arguments[index]) != nil {
                result.append("--boot=" + arguments[index])
                index += 1
            } else {
                result.append("--boot=" + Self.currentWord)
            }
        }
        return result
    }
}

/// `crontab`'s arguments, read as Debian's crontab reads them: `getopt` with `u:leri` (glibc's,
/// which takes options after operands too), one operation at most, and no arguments at all meaning
/// `crontab -`, the crontab from standard input.
package struct CrontabArguments: Sendable, Equatable {
    package enum Operation: Sendable, Equatable {
        case list
        case remove
        case edit
        /// Install the file (`-` for standard input) as the crontab.
        case replace(String)
    }

    package var operation: Operation
    /// `-u USER`: whose crontab (jobd lets only root name another user).
    package var user: String?
    /// `-i`: ask before `-r` removes.
    package var asksBeforeRemoving = false

    package init(operation: Operation, user: String? = nil, asksBeforeRemoving: Bool = false) {
        self.operation = operation
        self.user = user
        self.asksBeforeRemoving = asksBeforeRemoving
    }

    /// A usage error, with Debian's words for it.
    package struct UsageError: Error, Equatable {
        package var message: String
    }

    /// What Debian's crontab prints after a usage error.
    package static let usage = """
        usage:\tcrontab [-u user] file
        \tcrontab [ -u user ] [ -i ] { -e | -l | -r }
        \t\t(default operation is replace, per 1003.2)
        \t-e\t(edit user's crontab)
        \t-l\t(list user's crontab)
        \t-r\t(delete user's crontab)
        \t-i\t(prompt before deleting user's crontab)
        """

    /// Reads `arguments` (without the program's name).
    package static func parse(_ arguments: [String]) -> Result<CrontabArguments, UsageError> {
        if arguments.isEmpty { return .success(CrontabArguments(operation: .replace("-"))) }
        var operation: Operation?
        var user: String?
        var asks = false
        var operands: [String] = []
        var index = 0
        func set(_ new: Operation) throws(UsageError) {
            guard operation == nil else { throw UsageError(message: "only one operation permitted") }
            operation = new
        }
        do throws(UsageError) {
            while index < arguments.count {
                let word = arguments[index]
                index += 1
                if word == "--" {
                    operands += arguments[index...]
                    break
                }
                guard word.hasPrefix("-"), word.count > 1 else {
                    operands.append(word)
                    continue
                }
                var letters = Substring(word.dropFirst())
                while let letter = letters.popFirst() {
                    switch letter {
                    case "l": try set(.list)
                    case "r": try set(.remove)
                    case "e": try set(.edit)
                    case "i": asks = true
                    case "u":
                        if !letters.isEmpty {
                            user = String(letters)
                            letters = ""
                        } else if index < arguments.count {
                            user = arguments[index]
                            index += 1
                        } else {
                            throw UsageError(message: "option requires an argument -- 'u'")
                        }
                    default: throw UsageError(message: "unrecognized option -- '\(letter)'")
                    }
                }
            }
        } catch {
            return .failure(error)
        }
        if let operation {
            guard operands.isEmpty else { return .failure(UsageError(message: "no arguments permitted after this option")) }
            return .success(CrontabArguments(operation: operation, user: user, asksBeforeRemoving: asks))
        }
        guard let file = operands.first else { return .failure(UsageError(message: "file name must be specified for replace")) }
        return .success(CrontabArguments(operation: .replace(file), user: user, asksBeforeRemoving: asks))
    }
}

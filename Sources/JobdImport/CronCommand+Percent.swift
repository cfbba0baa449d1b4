extension CronCommand {
    /// Where the first unescaped `%` of a crontab command stands, when that is inside quotes,
    /// backquotes or `$(…)`: cron ends the command there all the same (it knows no shell quoting),
    /// so `$(date +%F)` is almost certainly meant as `$(date +\%F)`. `nil` when there is no such
    /// `%`, or it stands outside them.
    package static func quotedPercent(in text: String) -> String? {
        enum Context: Equatable { case single, double, backquote, substitution }
        var contexts: [Context] = []
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            let inSingle = contexts.last == .single
            switch scalar {
            case "\\":
                // `\%` and `\\` are cron's escapes everywhere; any other escape is the shell's,
                // except inside single quotes.
                if let next = scalars.first, next == "%" || next == "\\" || !inSingle { scalars.removeFirst() }
            case "%":
                switch contexts.last {
                case nil: return nil
                case .single: return "inside single quotes"
                case .double: return "inside double quotes"
                case .backquote: return "inside backquotes"
                case .substitution: return "inside $(…)"
                }
            case "'" where inSingle: contexts.removeLast()
            case "'" where contexts.last != .double: contexts.append(.single)
            case "\"" where contexts.last == .double: contexts.removeLast()
            case "\"" where !inSingle: contexts.append(.double)
            case "`" where contexts.last == .backquote: contexts.removeLast()
            case "`" where !inSingle: contexts.append(.backquote)
            case "$" where !inSingle && scalars.first == "(":
                scalars.removeFirst()
                contexts.append(.substitution)
            case "(" where contexts.last == .substitution: contexts.append(.substitution)
            case ")" where contexts.last == .substitution: contexts.removeLast()
            default: break
            }
        }
        return nil
    }
}

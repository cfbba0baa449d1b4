extension ExecCommand {
    /// The words of the command as written that a shell would read as an operator or a
    /// redirection (`|`, `&&`, `>`, `2>/dev/null`…), standing alone and with no quote or escape in
    /// them: jobd runs no shell, so each reaches the program as an argument, which is almost never
    /// what was meant (`jobctl check` warns, issue 38). A lone `;` is an error of its own; a word
    /// that ends in one (`du -sh /srv; rm …`) is the shell's list written without a shell, where
    /// `\;` (find's) is a literal semicolon meant as one.
    package var shellOperatorWords: [String] {
        Self.plainWords(of: text).filter { word in
            Self.operators.contains(word) || Self.redirectionPrefixes.contains(where: word.hasPrefix) || (word.count > 1 && word.hasSuffix(";"))
        }
    }

    private static let operators: Set<String> = ["|", "||", "&&", "&", "|&"]
    private static let redirectionPrefixes = [">", "<", "1>", "2>", "&>"]

    /// The words of `text` (separated by blanks, quotes kept together) that hold no quote and no
    /// backslash: those a shell would see as written.
    private static func plainWords(of text: String) -> [String] {
        var words: [String] = []
        var word = "", plain = true, quote: Character?, escaped = false
        func end() {
            if !word.isEmpty, plain { words.append(word) }
            word = ""
            plain = true
        }
        for character in text {
            if escaped {
                escaped = false
                word.append(character)
            } else if character == "\\" {
                escaped = true
                plain = false
            } else if let open = quote {
                if character == open { quote = nil }
                word.append(character)
            } else if character == "\"" || character == "'" {
                quote = character
                plain = false
                word.append(character)
            } else if character == " " || character == "\t" {
                end()
            } else {
                word.append(character)
            }
        }
        end()
        return words
    }
}

/// Writes values that jobd's job-file reader gives back unchanged: one quoted word in systemd's
/// syntax (systemd.syntax(7)), with the escapes jobd's ``JobdConfig/ExecCommand`` and
/// `Environment=` read.
package enum SystemdQuoting {
    /// `ExecStart=SHELL -c 'SCRIPT'`: the shell gets `script` byte for byte. In a command line
    /// `%` is written `%%` and `$` is written `$$`, so that jobd expands nothing.
    package static func shellCommand(_ shell: String, script: String) -> String {
        let executable = shell.unicodeScalars.allSatisfy(isPlain) ? shell : quotedWord(shell, commandLine: true)
        return executable + " -c " + quotedWord(script, commandLine: true)
    }

    /// `"NAME=value"` for `Environment=`, where neither `$` nor `%` is special.
    package static func environmentAssignment(name: String, value: String) -> String {
        quotedWord(name + "=" + value, commandLine: false)
    }

    /// `text` as one quoted word. Single quotes unless the text has single quotes and no double
    /// ones; inside either, `\\`, the quote, and control characters are escaped. In a command line
    /// also `%` and `$`, and a `;` standing alone between spaces (jobd refuses a lone `;` as a
    /// command separator, even inside quotes).
    static func quotedWord(_ text: String, commandLine: Bool) -> String {
        let scalars = Array(text.unicodeScalars)
        let quote: Unicode.Scalar = scalars.contains("'") && !scalars.contains("\"") ? "\"" : "'"
        var word = String(quote)
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "\\": word += "\\\\"
            case quote: word += "\\" + String(quote)
            case "\n": word += "\\n"
            case "\t": word += "\\t"
            case "\r": word += "\\r"
            case "%" where commandLine: word += "%%"
            case "$" where commandLine: word += "$$"
            case ";" where commandLine && index > 0 && scalars[index - 1] == " "
                && index + 1 < scalars.count && scalars[index + 1] == " ":
                word += "\\;"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    word += "\\x" + hexDigit(scalar.value >> 4) + hexDigit(scalar.value & 0xF)
                } else {
                    word.unicodeScalars.append(scalar)
                }
            }
        }
        word.unicodeScalars.append(quote)
        return word
    }

    private static func hexDigit(_ value: UInt32) -> String {
        String(Array("0123456789abcdef")[Int(value)])
    }

    /// Characters that need no quoting anywhere in a job file's command line.
    static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
            || "_@+=:,./-".unicodeScalars.contains(scalar))
    }
}

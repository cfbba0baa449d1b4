import Foundation

/// What Debian's cron hands `/bin/sh -c` for a crontab line, written down from crontab(5) and
/// cron's behaviour independently of `JobdImport`, on bytes as cron works: the command, and the
/// bytes it writes into the command's standard input.
enum DebianCronReference {
    static func split(_ text: String) -> (command: [UInt8], input: [UInt8]?) {
        let bytes = Array(text.utf8)
        let backslash = UInt8(ascii: "\\"), percent = UInt8(ascii: "%"), newline = UInt8(ascii: "\n")
        var command: [UInt8] = []
        var index = 0
        // The command: `\%` and `\\` lose their backslash; the first bare `%` ends it.
        while index < bytes.count, bytes[index] != percent {
            if bytes[index] == backslash, index + 1 < bytes.count, bytes[index + 1] == percent || bytes[index + 1] == backslash {
                command.append(bytes[index + 1])
                index += 2
            } else {
                command.append(bytes[index])
                index += 1
            }
        }
        guard index < bytes.count else { return (command, nil) }
        // The input: runs of backslashes before a `%` lose one and keep the `%`; a bare `%` is a
        // newline; other backslashes stay.
        var input: [UInt8] = []
        var lastPlain: UInt8?
        index += 1
        while index < bytes.count {
            var run = 0
            while index < bytes.count, bytes[index] == backslash { run += 1; index += 1 }
            if index == bytes.count {
                input += Array(repeating: backslash, count: run)
                if run > 0 { return (command, lastPlain.map { $0 == newline } == false ? input + [newline] : input) }
                break
            }
            let byte = bytes[index]
            index += 1
            if byte == percent {
                input += Array(repeating: backslash, count: max(run - 1, 0))
                input.append(run > 0 ? percent : newline)
                lastPlain = run > 0 ? percent : newline
            } else {
                input += Array(repeating: backslash, count: run)
                input.append(byte)
                lastPlain = byte
            }
        }
        if let lastPlain, lastPlain != newline { input.append(newline) }
        return (command, input)
    }
}

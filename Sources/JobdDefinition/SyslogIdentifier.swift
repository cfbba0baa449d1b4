/// What `SyslogIdentifier=` takes: systemd takes any string (and expands specifiers in it); jobd
/// takes the names `journalctl -t` is used with in practice, written out, so that a value cannot
/// break a line of the readable log or pass for jobd's own entries.
package enum SyslogIdentifier {
    /// The longest identifier: syslog's TAG is at most 32 characters (RFC 3164); journald takes
    /// more, but a longer one is cut by the syslog programs that read the journal.
    static let maximumLength = 32

    /// Letters, digits and `-_.@:+`, at most ``maximumLength``, and not `jobd`.
    package static func isValid(_ value: String) -> Bool {
        guard !value.isEmpty, value.utf8.count <= maximumLength, value != "jobd" else { return false }
        return value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "+"): true
            default: false
            }
        }
    }

    /// What to write instead of `value`.
    package static func hint(for value: String) -> String {
        if value == "jobd" { return "jobd's own entries carry SYSLOG_IDENTIFIER=jobd: choose another name, such as the program's" }
        if value.contains("%") { return "jobd does not expand systemd's specifiers (%n, %N…): write the identifier itself, such as backup" }
        if value.utf8.count > maximumLength { return "write at most \(maximumLength) characters" }
        return "write letters, digits and - _ . @ : + only, such as backup-db"
    }
}

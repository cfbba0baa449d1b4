/// Linux's signal names as systemd writes them without the `SIG` prefix (`EXIT_STATUS=TERM`).
package enum SignalName {
    static let names: [Int32: String] = [
        1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 5: "TRAP", 6: "ABRT", 7: "BUS", 8: "FPE", 9: "KILL",
        10: "USR1", 11: "SEGV", 12: "USR2", 13: "PIPE", 14: "ALRM", 15: "TERM", 16: "STKFLT", 17: "CHLD", 18: "CONT",
        19: "STOP", 20: "TSTP", 21: "TTIN", 22: "TTOU", 23: "URG", 24: "XCPU", 25: "XFSZ", 26: "VTALRM", 27: "PROF",
        28: "WINCH", 29: "IO", 30: "PWR", 31: "SYS",
    ]

    /// `TERM` for 15; the number for a signal without a name.
    package static func name(of signal: Int32) -> String {
        names[signal] ?? String(signal)
    }

    /// 15 for `SIGTERM` or `TERM`; `nil` for no signal's name.
    package static func number(named name: String) -> Int32? {
        let bare = name.hasPrefix("SIG") ? String(name.dropFirst(3)) : name
        return names.first { $0.value == bare }?.key
    }
}

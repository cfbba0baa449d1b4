import JobdScheduler

/// One process, for as long as the system runs: its pid and its start time in clock ticks since
/// boot (field 22 of `/proc/PID/stat`). A pid alone is reused; the pair is not, so a record of a run
/// handed over never adopts, or takes the end of, another process that got the same pid.
package struct ProcessIdentity: Sendable, Hashable {
    package var pid: Int32
    package var startTicks: UInt64

    package init(pid: Int32, startTicks: UInt64) {
        self.pid = pid
        self.startTicks = startTicks
    }

    /// The identity in saved fields (`pid=`, `start_ticks=`); `nil` unless both are there.
    init?(_ values: [Substring: Substring]) {
        guard let pid = values["pid"].flatMap({ Int32($0) }), pid > 0,
              let ticks = values["start_ticks"].flatMap({ UInt64($0) }) else { return nil }
        self.init(pid: pid, startTicks: ticks)
    }

    /// The process's start time in the text of `/proc/PID/stat`: field 22, counted after the
    /// command's closing parenthesis, since the command (field 2) may hold spaces and parentheses.
    package static func startTicks(procStat text: Substring) -> UInt64? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (the state), so field 22 is fields[19].
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}

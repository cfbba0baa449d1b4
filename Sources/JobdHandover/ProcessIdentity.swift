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
        Array(text.utf8).withUnsafeBytes { startTicks(procStat: $0) }
    }

    /// As ``startTicks(procStat:)-(Substring)``, from the file's bytes: read at each run's spawn,
    /// so without making a string of them.
    package static func startTicks(procStat bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // Fields after the command, from 0 (field 3, the state): field 22 is number 19.
        var field = -1
        var value: UInt64 = 0
        var betweenFields = true
        for byte in bytes[(close + 1)...] {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                if field == 19, !betweenFields { return value }
                betweenFields = true
                continue
            }
            if betweenFields {
                field += 1
                betweenFields = false
            }
            guard field == 19 else { continue }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (tenfold, over) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = tenfold.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !over, !carry else { return nil }
            value = sum
        }
        return field == 19 ? value : nil
    }
}

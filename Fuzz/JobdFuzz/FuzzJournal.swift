import JobdAudit

/// Journal entries written as text, the audit target's input: `FIELD=VALUE` lines, a blank line
/// between entries. Three pseudo-fields set the entry's time: `@REALTIME=` and `@MONOTONIC=`
/// (microseconds; each defaults to one second after the previous entry's) and `@BOOT=`.
struct FuzzJournal {
    var entries: [AuditEntry] = []

    init(_ text: String) {
        var realtime: UInt64 = 1_700_000_000_000_000
        var monotonic: UInt64 = 1_000_000
        var boot = JournalInstant.unknownBoot
        var fields: [String: String] = [:]
        var open = false
        func close() {
            if open {
                entries.append(AuditEntry(fields: fields, time: JournalInstant(
                    realtimeUSec: realtime, monotonicUSec: monotonic, bootID: boot)))
            }
            fields = [:]
            open = false
            realtime &+= 1_000_000
            monotonic &+= 1_000_000
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard !line.isEmpty else {
                close()
                continue
            }
            open = true
            let (name, value) = line.firstIndex(of: "=").map { (line[..<$0], line[line.index(after: $0)...]) } ?? (line, "")
            switch name {
            case "@REALTIME": realtime = UInt64(value) ?? realtime
            case "@MONOTONIC": monotonic = UInt64(value) ?? monotonic
            case "@BOOT": boot = String(value)
            default: fields[String(name)] = String(value)
            }
        }
        close()
    }
}

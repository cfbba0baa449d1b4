import CSystemd
import Glibc

/// Reads journal entries with `sd_journal`: the local journal, a directory of journal files, or
/// named files.
///
/// A reader is not thread-safe (neither is `sd_journal`): use it from one task at a time.
///
/// ```swift
/// let reader = try JournalReader(directory: "/tmp/journal")
/// try reader.addMatch("JOBD_EVENT", "run.exit")
/// try reader.addMatch("JOBD_EVENT", "run.timeout")   // same field: either value matches
/// try reader.addConjunction()
/// try reader.addMatch("JOB", "backup")
/// for entry in try reader.readAll() { print(entry.realtimeUSec, entry.message ?? "") }
/// ```
package final class JournalReader {
    /// Which journal files a reader opens.
    package enum Source: Sendable, Hashable {
        /// The journal of this machine (`sd_journal_open` with `SD_JOURNAL_LOCAL_ONLY`).
        case local
        /// Every journal file in a directory and its machine-id subdirectories
        /// (`sd_journal_open_directory`), as `journalctl --directory` does.
        case directory(String)
        /// Exactly these files (`sd_journal_open_files`).
        case files([String])
    }

    /// The oldest entry of a journal and the time span it covers, to judge whether older entries were
    /// rotated or vacuumed away.
    package struct Head: Sendable, Hashable {
        /// The first entry in the journal, regardless of matches.
        package let firstEntry: JournalEntry
        /// The earliest and latest realtime timestamps of all files (`sd_journal_get_cutoff_realtime_usec`).
        package let realtimeUSec: ClosedRange<UInt64>
    }

    /// The files this reader opened.
    package let source: Source
    private let journal: OpaquePointer

    /// Opens `source`.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/journalReadFailed``.
    package init(_ source: Source = .local) throws(SystemdError) {
        self.source = source
        var handle: OpaquePointer?
        switch source {
        case .local:
            try SystemdError.check(
                sd_journal_open(&handle, Int32(SD_JOURNAL_LOCAL_ONLY)), .journalReadFailed, "sd_journal_open (local journal)"
            )
        case .directory(let path):
            try SystemdError.check(
                sd_journal_open_directory(&handle, path, 0), .journalReadFailed,
                "sd_journal_open_directory(\(path)); expected a directory of .journal files"
            )
        case .files(let paths):
            let result = Self.withCStrings(paths) { sd_journal_open_files(&handle, $0, 0) }
            try SystemdError.check(result, .journalReadFailed, "sd_journal_open_files(\(paths.joined(separator: ", ")))")
        }
        journal = handle!
        // 0: return whole field values; the default cuts them at 64 KiB. (If this throws, deinit
        // still runs, because every stored property is set, and closes the handle.)
        try SystemdError.check(sd_journal_set_data_threshold(journal, 0), .journalReadFailed, "sd_journal_set_data_threshold(0)")
    }

    /// Opens the journal files in `directory`.
    package convenience init(directory: String) throws(SystemdError) { try self.init(.directory(directory)) }

    /// Opens exactly the journal files at `paths`.
    package convenience init(files: [String]) throws(SystemdError) { try self.init(.files(files)) }

    deinit { sd_journal_close(journal) }

    // MARK: Matches

    /// Only entries with `field=value`. Matches on the same field are alternatives (OR); matches on
    /// different fields must all hold (AND), as in `journalctl FIELD=value ...`.
    package func addMatch(_ field: String, _ value: String) throws(SystemdError) {
        let match = Array("\(field)=\(value)".utf8)
        let result = match.withUnsafeBytes { sd_journal_add_match(journal, $0.baseAddress, $0.count) }
        try SystemdError.check(result, .journalReadFailed, "sd_journal_add_match(\(field)=\(value))")
    }

    /// Starts a new group of matches that is ORed with the previous ones (`journalctl ... + ...`).
    package func addDisjunction() throws(SystemdError) {
        try SystemdError.check(sd_journal_add_disjunction(journal), .journalReadFailed, "sd_journal_add_disjunction")
    }

    /// Starts a new group of matches that is ANDed with the previous ones.
    package func addConjunction() throws(SystemdError) {
        try SystemdError.check(sd_journal_add_conjunction(journal), .journalReadFailed, "sd_journal_add_conjunction")
    }

    /// Removes all matches.
    package func flushMatches() { sd_journal_flush_matches(journal) }

    // MARK: Position

    /// Positions before the first entry: ``next()`` returns the oldest.
    package func seekHead() throws(SystemdError) {
        try SystemdError.check(sd_journal_seek_head(journal), .journalReadFailed, "sd_journal_seek_head")
    }

    /// Positions after the last entry: ``previous()`` returns the newest.
    package func seekTail() throws(SystemdError) {
        try SystemdError.check(sd_journal_seek_tail(journal), .journalReadFailed, "sd_journal_seek_tail")
    }

    /// Positions so that ``next()`` returns the first entry received at or after `realtimeUSec`
    /// (microseconds since the Unix epoch).
    package func seek(realtimeSinceUSec realtimeUSec: UInt64) throws(SystemdError) {
        try SystemdError.check(
            sd_journal_seek_realtime_usec(journal, realtimeUSec), .journalReadFailed,
            "sd_journal_seek_realtime_usec(\(realtimeUSec))"
        )
    }

    /// Positions at the entry with `cursor`: ``next()`` returns that entry (skip it to resume after it).
    package func seek(cursor: String) throws(SystemdError) {
        try SystemdError.check(sd_journal_seek_cursor(journal, cursor), .journalReadFailed, "sd_journal_seek_cursor")
    }

    // MARK: Entries

    /// The next matching entry, or `nil` at the end.
    package func next() throws(SystemdError) -> JournalEntry? {
        let moved = try SystemdError.check(sd_journal_next(journal), .journalReadFailed, "sd_journal_next")
        return moved > 0 ? try currentEntry() : nil
    }

    /// The previous matching entry, or `nil` at the start.
    package func previous() throws(SystemdError) -> JournalEntry? {
        let moved = try SystemdError.check(sd_journal_previous(journal), .journalReadFailed, "sd_journal_previous")
        return moved > 0 ? try currentEntry() : nil
    }

    /// Every matching entry after the current position, oldest first.
    package func readAll() throws(SystemdError) -> [JournalEntry] {
        var entries: [JournalEntry] = []
        while let entry = try next() { entries.append(entry) }
        return entries
    }

    /// Waits until the journal changes or `timeout` passes (`nil`: forever). Returns whether new
    /// entries may have arrived (files appended to, added or removed).
    package func wait(timeout: Duration?) throws(SystemdError) -> Bool {
        let usec = timeout.map { $0.microseconds } ?? UInt64.max
        let result = try SystemdError.check(sd_journal_wait(journal, usec), .journalReadFailed, "sd_journal_wait")
        return result != Int32(SD_JOURNAL_NOP)
    }

    /// The oldest entry of the opened files (matches ignored) and the realtime span they cover, or
    /// `nil` for an empty journal. Compare the first entry's ``JournalEntry/seqnum`` and time with
    /// what you expected to find, to judge whether the head was rotated away.
    package func head() throws(SystemdError) -> Head? {
        // A second handle, so this reader's matches and position stay as they were.
        let other = try JournalReader(source)
        try other.seekHead()
        guard let first = try other.next() else { return nil }
        var from: UInt64 = 0
        var to: UInt64 = 0
        try SystemdError.check(
            sd_journal_get_cutoff_realtime_usec(journal, &from, &to), .journalReadFailed, "sd_journal_get_cutoff_realtime_usec"
        )
        return Head(firstEntry: first, realtimeUSec: min(from, to)...max(from, to))
    }

    /// Every boot with entries in the opened files (matches ignored), oldest first by their first
    /// entry, as `journalctl --list-boots` orders them.
    package func boots() throws(SystemdError) -> [JournalBoot] {
        // A second handle, so this reader's matches and position stay as they were.
        let other = try JournalReader(source)
        try SystemdError.check(sd_journal_query_unique(other.journal, "_BOOT_ID"), .journalReadFailed, "sd_journal_query_unique(_BOOT_ID)")
        var ids: [String] = []
        var data: UnsafeRawPointer?
        var length = 0
        while try SystemdError.check(
            sd_journal_enumerate_available_unique(other.journal, &data, &length), .journalReadFailed,
            "sd_journal_enumerate_available_unique"
        ) > 0 {
            let value = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            if value.hasPrefix("_BOOT_ID=") { ids.append(String(value.dropFirst("_BOOT_ID=".count))) }
        }
        var boots: [JournalBoot] = []
        for id in ids {
            other.flushMatches()
            try other.addMatch("_BOOT_ID", id)
            try other.seekHead()
            guard let first = try other.next() else { continue }
            try other.seekTail()
            let last = try other.previous() ?? first
            boots.append(JournalBoot(id: id, firstRealtimeUSec: first.realtimeUSec, lastRealtimeUSec: last.realtimeUSec))
        }
        return boots.sorted { ($0.firstRealtimeUSec, $0.id) < ($1.firstRealtimeUSec, $1.id) }
    }

    private func currentEntry() throws(SystemdError) -> JournalEntry {
        var realtime: UInt64 = 0
        try SystemdError.check(sd_journal_get_realtime_usec(journal, &realtime), .journalReadFailed, "sd_journal_get_realtime_usec")
        var monotonic: UInt64 = 0
        var boot = sd_id128_t()
        try SystemdError.check(
            sd_journal_get_monotonic_usec(journal, &monotonic, &boot), .journalReadFailed, "sd_journal_get_monotonic_usec"
        )
        var cursorPointer: UnsafeMutablePointer<CChar>?
        try SystemdError.check(sd_journal_get_cursor(journal, &cursorPointer), .journalReadFailed, "sd_journal_get_cursor")
        let cursor = String(cString: cursorPointer!)
        free(cursorPointer)

        var fields: [String: String] = [:]
        sd_journal_restart_data(journal)
        var data: UnsafeRawPointer?
        var length = 0
        while try SystemdError.check(
            sd_journal_enumerate_available_data(journal, &data, &length), .journalReadFailed,
            "sd_journal_enumerate_available_data"
        ) > 0 {
            let bytes = UnsafeRawBufferPointer(start: data, count: length)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: bytes[..<equals], as: UTF8.self)
            if fields[name] == nil {
                fields[name] = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
            }
        }
        return JournalEntry(
            fields: fields, realtimeUSec: realtime, monotonicUSec: monotonic, bootID: ID128.string(boot), cursor: cursor
        )
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let duplicates = strings.map { strdup($0) }
        defer { duplicates.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = duplicates.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}

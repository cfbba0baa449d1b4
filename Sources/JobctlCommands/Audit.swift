import ArgumentParser
import Foundation
import JobdAudit
import SystemdKit

extension Jobctl {
    /// `jobctl audit`: reads jobd's events from the journal and proves that every job owner was
    /// released, or names the ones that were not. The analysis is `JobdAudit`'s; this reads the journal.
    public struct Audit: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Audit jobd's journal: prove that every job owner was released.",
            discussion: """
                Reads the entries with SYSLOG_IDENTIFIER=jobd, groups them by JOBD_INSTANCE and \
                generation, and reports per instance and generation the owners created, released, \
                carried over and still alive, the timers invalidated by reason, and every problem: \
                a leak (an owner retired by a reload or stop and not released within 5s, or reported \
                by jobd with owner.leak), a late release, a timer fire that reached a released owner.

                A journal whose head was rotated away, or that ends before jobd's exit, is reported as \
                incomplete, not as leaking.

                TIME is 'YYYY-MM-DD HH:MM:SS' (local time; also 'YYYY-MM-DD HH:MM', 'YYYY-MM-DD'), \
                '@EPOCH' (seconds since 1970), or a time before now: '-90s', '-30min', '-1h', '-2d', '-1w'.

                Exit status: 0 when no problem was found (clean, incomplete, or pending: a retired \
                owner whose grace period has not passed yet), 1 on a leak, a late release or an \
                impossible order of events, 2 when the journal cannot be read.
                """)

        @Option(name: .long, help: ArgumentHelp("Read the journal files in DIR instead of the local journal.", valueName: "DIR"))
        var directory: String?

        @Option(name: .customLong("file"), parsing: .upToNextOption,
                help: ArgumentHelp("Read exactly these journal files.", valueName: "FILE"))
        var files: [String] = []

        @Option(help: ArgumentHelp("Only entries at or after TIME.", valueName: "TIME"))
        var since: String?

        @Option(help: ArgumentHelp("Only entries at or before TIME.", valueName: "TIME"))
        var until: String?

        @Flag(help: "Only entries of one boot: the boot ID given after it, or the current boot.")
        var boot = false

        @Argument(help: ArgumentHelp("With --boot: the boot ID (32 hex digits). Without it, the current boot.", valueName: "ID"))
        var bootID: String?

        @Flag(help: "Print the report as JSON (schema: JobdAudit's AuditReport.jsonData()).")
        var json = false

        public init() {}

        public func validate() throws {
            if directory != nil && !files.isEmpty { throw ValidationError("--directory and --file cannot be combined") }
            if bootID != nil && !boot { throw ValidationError("a boot ID is only accepted after --boot") }
            if let bootID, Self.normalizedBootID(bootID) == nil {
                throw ValidationError("'\(bootID)' is not a boot ID: expected 32 hex digits (as in journalctl --list-boots)")
            }
        }

        public func run() throws {
            let clock = AuditClock(timeZone: .current)
            let now = UInt64(Date().timeIntervalSince1970 * 1_000_000)
            let sinceUSec: UInt64?
            let untilUSec: UInt64?
            do {
                sinceUSec = try since.map { text throws(AuditError) in try clock.parse(text, nowUSec: now) }
                untilUSec = try until.map { text throws(AuditError) in try clock.parse(text, nowUSec: now) }
            } catch {
                throw ValidationError(error.context)
            }
            let report: AuditReport
            do {
                report = try audit(since: sinceUSec, until: untilUSec, clock: clock)
            } catch {
                var standardError = StandardError()
                print("jobctl audit: cannot read the journal: \(error)", to: &standardError)
                throw ExitCode(2)
            }
            if json {
                print(String(decoding: report.jsonData(), as: UTF8.self))
            } else {
                print(report.text(clock: clock), terminator: "")
            }
            if report.exitCode != 0 { throw ExitCode(report.exitCode) }
        }

        /// Reads the selected entries into the auditor, and the journal's end for the grace periods.
        private func audit(since: UInt64?, until: UInt64?, clock: AuditClock) throws -> AuditReport {
            let source = try self.source()
            let boot = try boot ? (bootID.flatMap(Self.normalizedBootID) ?? ID128.bootID()) : nil
            let reader = try JournalReader(source)
            guard try reader.head() != nil else {
                throw SystemdError(.journalReadFailed, errno: .ENOENT, context: "no journal entries in \(Self.describe(source))")
            }
            try reader.addMatch("SYSLOG_IDENTIFIER", "jobd")
            // journald's notes of messages its rate limit dropped: jobd's entries may be missing.
            try reader.addDisjunction()
            try reader.addMatch("MESSAGE_ID", LifecycleAuditor.journalDroppedMessageID)
            if let boot {
                try reader.addConjunction()
                try reader.addMatch("_BOOT_ID", boot)
            }
            if let since { try reader.seek(realtimeSinceUSec: since) } else { try reader.seekHead() }
            var auditor = LifecycleAuditor(clock: clock)
            while let entry = try reader.next() {
                if let until, entry.realtimeUSec > until { break }
                auditor.consume(AuditEntry(fields: entry.fields, time: Self.instant(entry)))
            }
            return auditor.finish(journalEnd: try journalEnd(source, boot: boot, until: until))
        }

        /// The last entry of any program (within the boot and before `until`): a quiet jobd's time
        /// passes too, and grace periods are measured to it.
        private func journalEnd(_ source: JournalReader.Source, boot: String?, until: UInt64?) throws -> JournalInstant? {
            let reader = try JournalReader(source)
            if let boot { try reader.addMatch("_BOOT_ID", boot) }
            if let until {
                try reader.seek(realtimeSinceUSec: until &+ 1)
            } else {
                try reader.seekTail()
            }
            return try reader.previous().map(Self.instant)
        }

        private func source() throws -> JournalReader.Source {
            var isDirectory: ObjCBool = false
            if let directory {
                guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
                    throw SystemdError(.journalReadFailed, errno: .ENOENT, context: "--directory \(directory)")
                }
                guard isDirectory.boolValue else {
                    throw SystemdError(.journalReadFailed, errno: .ENOTDIR, context: "--directory \(directory)")
                }
                return .directory(directory)
            }
            if !files.isEmpty {
                for file in files where !FileManager.default.isReadableFile(atPath: file) {
                    throw SystemdError(.journalReadFailed, errno: .ENOENT, context: "--file \(file): not a readable file")
                }
                return .files(files)
            }
            return .local
        }

        private static func instant(_ entry: JournalEntry) -> JournalInstant {
            JournalInstant(realtimeUSec: entry.realtimeUSec, monotonicUSec: entry.monotonicUSec, bootID: entry.bootID)
        }

        private static func describe(_ source: JournalReader.Source) -> String {
            switch source {
            case .local: "the local journal"
            case .directory(let path): path
            case .files(let paths): paths.joined(separator: ", ")
            }
        }

        /// 32 lowercase hex digits, from an ID that may have dashes or capitals; `nil` if it is not one.
        static func normalizedBootID(_ text: String) -> String? {
            let id = text.lowercased().filter { $0 != "-" }
            return ID128.isValid(id) ? id : nil
        }
    }
}

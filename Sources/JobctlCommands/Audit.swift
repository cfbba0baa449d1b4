package import ArgumentParser
import Glibc
import JobdAudit
import JobdCalendar
import JobdConfig
import JobdFleet
import SystemdKit

extension Jobctl {
    /// `jobctl audit`: reads jobd's events from the journal and proves that every job owner was
    /// released, or names the ones that were not. The analysis is `JobdAudit`'s; this reads the journal.
    package struct Audit: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Audit jobd's journal: prove that every job owner was released.",
            discussion: """
                Reads the entries with SYSLOG_IDENTIFIER=jobd, groups them by JOBD_INSTANCE and \
                generation, and reports per instance and generation the owners created, released, \
                carried over and still alive, the timers invalidated by reason, and every problem: \
                a leak (an owner retired by a reload or stop and not released within 5s, or reported \
                by jobd with owner.leak), a late release, a timer fire that reached a released owner.

                A journal whose head was rotated away, or that ends before jobd's exit, is reported as \
                incomplete, not as leaking. So is an instance whose entries journald's rate limit may \
                have dropped ("Suppressed N messages from jobd.service"): its owners not seen released \
                are unaccounted for, not leaked. Only journald's own note counts (_TRANSPORT=driver, \
                _UID=0): anyone may send its MESSAGE_ID, and such a note excuses nothing: it is \
                foreign (suspect).

                TIME is read as journalctl reads it: 'YYYY-MM-DD HH:MM:SS' (local time; also \
                'YYYY-MM-DD HH:MM', 'YYYY-MM-DD', 'HH:MM', a trailing ' UTC'), 'today', 'yesterday', \
                'now', '@EPOCH', or a span before or after now: '-1h', '-30min', '+5min', '2h ago'. \
                --boot (-b) takes journalctl's values: nothing for the current boot, a boot ID, or an \
                offset among the journal's boots ('0' the last, '-1' the one before, '1' the first).

                With --fleet, audits the fleet's claims table instead (the database of the [Fleet] \
                section of --config-dir's jobd.conf): an elapse claimed twice (a run of an elapse \
                after one that did not fail), a double run (two attempts of an elapse whose times \
                overlap, whatever their results; a run recorded lost counts until its real end, or \
                else its lease's end), a claim with neither an end nor a lost record whose \
                lease lapsed more than a lease ago, and an elapse of a RunOn=one-node job that no \
                node claimed although a node was alive from a lease before it to a lease after it. \
                With --elapses, lists instead each elapse of the fleet jobs (in --since/--until): ran \
                once (node, result, the retries before it), ran N times, skipped (why), or not \
                claimed by any node; exit status 1 when an elapse ran twice.

                Exit status: 0 when no problem was found (clean, incomplete, or pending: a retired \
                owner whose grace period has not passed yet), 1 on a leak, a late release or an \
                impossible order of events, 3 when entries that claim to be jobd's were written by \
                another process (suspect: journald's _UID and _PID say so; they are left out and \
                named), 2 when the journal cannot be read, 64 on invalid arguments.
                """)

        @OptionGroup var journal: JournalOptions

        @Flag(help: "Print the report as JSON (schema: JobdAudit's AuditReport.jsonData()).")
        var json = false

        @Flag(help: "Audit the fleet's claims table rather than the journal.")
        var fleet = false

        @Flag(help: "With --fleet: list each elapse of the fleet jobs (in --since/--until, else all): ran once, ran twice, skipped (why), not claimed.")
        var elapses = false

        @Option(name: .customLong("config-dir"), help: "With --fleet: jobd's configuration directory.")
        var configDirectory = "/etc/jobd"

        package init() {}

        package func run() async throws {
            if fleet {
                try await auditFleet()
                return
            }
            let clock = AuditClock(timeZone: .current())
            let (sinceUSec, untilUSec) = try journal.timeRange()
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
            let source = try journal.source()
            let boot = try journal.bootID(in: source)
            let reader = try JournalReader(source)
            guard try reader.head() != nil else {
                throw SystemdError(.journalReadFailed, errno: .ENOENT, context: "no journal entries in \(JournalOptions.describe(source))")
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

        private static func instant(_ entry: JournalEntry) -> JournalInstant {
            JournalInstant(realtimeUSec: entry.realtimeUSec, monotonicUSec: entry.monotonicUSec, bootID: entry.bootID)
        }

        /// `--fleet`: the claims and the nodes' heartbeats, against the elapses of the job files.
        private func auditFleet() async throws {
            let connection = try await FleetConnection.open(configDirectory: configDirectory, command: "audit --fleet")
            let claims: [ClaimRecord], nodes: (sessions: [NodeSession], now: RealtimeInstant)
            do {
                claims = try await connection.database.claims()
                nodes = try await connection.database.nodeSessions()
            } catch {
                var standardError = StandardError()
                print("jobctl audit --fleet: \(error)", to: &standardError)
                throw ExitCode(2)
            }
            await connection.close()
            let (sessions, now) = nodes
            let start = sessions.map(\.startedAt).min() ?? now
            let expected = FleetAudit.expectedElapses(
                of: connection.configuration.jobs, from: start, to: now,
                zone: TimeZoneRules.current())
            if elapses {
                let range = try journal.timeRange()
                let window = RealtimeInstant(microseconds: range.since.map { Int64($0) } ?? .min)
                    ... RealtimeInstant(microseconds: range.until.map { Int64($0) } ?? now.microseconds)
                let listing = FleetElapses(claims: claims, expected: expected, window: window)
                print(listing.text(in: TimeZoneRules.current()), terminator: "")
                if listing.ranTwice { throw ExitCode(1) }
                return
            }
            let audit = FleetAudit(claims: claims, sessions: sessions, expected: expected,
                                   lease: Int64(connection.settings.lease.microseconds), now: now)
            print(audit.text, terminator: "")
            if audit.exitCode != 0 { throw ExitCode(audit.exitCode) }
        }
    }
}

import Foundation
import JobdAudit
import Testing

/// Anyone may write `SYSLOG_IDENTIFIER=jobd` and `JOBD_*` fields; journald's trusted `_UID` and
/// `_PID` say who did. Entries jobd did not write are left out and make the verdict `suspect`.
@Suite struct ForeignEntryTests {
    /// A clean instance whose entries carry the trusted fields journald gives jobd's: root, one pid.
    static func trustedRun() -> SyntheticJournal {
        var journal = SyntheticJournal()
        journal.startUp([("backup", 1)])
        journal.cleanStop(generation: 1, owners: [("backup", 1, 1)])
        journal.entries = journal.entries.map { entry in
            var fields = entry.fields
            fields["_UID"] = "0"
            fields["_PID"] = "4242"
            return AuditEntry(fields: fields, time: entry.time)
        }
        return journal
    }

    /// An entry of `journal`'s instance with `fields`, as `uid` and `pid` wrote it.
    static func forged(_ journal: SyntheticJournal, _ fields: [String: String], uid: String, pid: String) -> AuditEntry {
        var all = fields
        all["SYSLOG_IDENTIFIER"] = "jobd"
        all["JOBD_INSTANCE"] = journal.instance
        all["_UID"] = uid
        all["_PID"] = pid
        return AuditEntry(all, realtimeUSec: journal.nowUSec, bootID: SyntheticJournal.bootID)
    }

    @Test func aTrustedRunStaysClean() {
        let report = LifecycleAuditor.audit(Self.trustedRun().entries)
        #expect(report.verdict == .clean && report.exitCode == 0 && report.foreignEntries == 0)
    }

    /// (what is forged, by which uid and pid): each is left out, and the verdict is suspect.
    static let forgeries: [([String: String], String, String)] = [
        (["JOBD_EVENT": "owner.leak", "JOBD_OWNER": "1", "JOB": "backup"], "65534", "999"),
        (["JOBD_EVENT": "run.exit", "JOB": "backup", "JOBD_RESULT": "success"], "65534", "999"),
        // root, but not the instance's process.
        (["JOBD_EVENT": "owner.leak", "JOBD_OWNER": "1", "JOB": "backup"], "0", "31337"),
        // The memory attack: a million owners in one entry.
        (["JOBD_EVENT": "owners.init", "JOBD_OWNERS": "1-1000000", "JOBD_OWNER_COUNT": "1000000", "JOBD_GENERATION": "1"], "65534", "999"),
    ]

    @Test(arguments: forgeries.indices) func aForgedEntryIsForeignAndTheVerdictSuspect(index: Int) {
        let (fields, uid, pid) = Self.forgeries[index]
        var entries = Self.trustedRun().entries
        entries.insert(Self.forged(Self.trustedRun(), fields, uid: uid, pid: pid), at: 3)
        let report = LifecycleAuditor.audit(entries)
        #expect(report.verdict == .suspect && report.exitCode == 3, "\(report.text())")
        #expect(report.foreignEntries == 1 && report.foreignExamples.first?.hasPrefix("_UID=\(uid) _PID=\(pid) ") == true)
        // What it claimed is not folded in: the instance itself is as clean as before.
        #expect(report.instances.first?.verdict == .clean && report.instances.first?.owners.created == 1)
        #expect(report.text().contains("1 entries claim to be jobd's but were written by another process"))
    }

    /// Under a unit, an entry of the instance must come from that unit too (a pid is reused).
    @Test func anEntryFromAnotherUnitIsForeign() {
        var journal = Self.trustedRun()
        journal.entries = journal.entries.map { entry in
            var fields = entry.fields
            fields["_SYSTEMD_UNIT"] = "jobd.service"
            return AuditEntry(fields: fields, time: entry.time)
        }
        var entries = journal.entries
        var forged = Self.forged(journal, ["JOBD_EVENT": "owner.leak", "JOBD_OWNER": "1", "JOB": "backup"], uid: "0", pid: "4242")
        forged.fields["_SYSTEMD_UNIT"] = "cron.service"
        entries.insert(forged, at: 3)
        let report = LifecycleAuditor.audit(entries)
        #expect(report.verdict == .suspect && report.foreignExamples.first?.contains("cron.service") == true, "\(report.text())")
        #expect(LifecycleAuditor.audit(journal.entries).verdict == .clean)
    }

    /// A genuine leak still fails, whatever was forged beside it.
    @Test func aRealFailureOutranksSuspicion() {
        var journal = SyntheticJournal()
        journal.startUp([("backup", 1)])
        journal.event("owner.leak", ["JOB": "backup", "JOBD_OWNER": "1", "JOBD_GENERATION": "1"])
        var entries = journal.entries
        entries.append(Self.forged(journal, ["JOBD_EVENT": "run.exit", "JOB": "backup"], uid: "1000", pid: "7"))
        let report = LifecycleAuditor.audit(entries)
        #expect(report.verdict == .failed && report.exitCode == 1 && report.foreignEntries == 1)
    }

    /// A note with journald's "Suppressed" MESSAGE_ID, as anyone may send one (issue 37): the
    /// trusted fields journald gave it (`logger --journald` as nobody; root's own logger; no
    /// trusted fields at all, as a file built by hand could hold).
    static let forgedNotes: [[String: String]] = [
        ["_TRANSPORT": "journal", "_UID": "65534", "_PID": "999"],
        ["_TRANSPORT": "syslog", "_UID": "65534", "_PID": "999"],
        ["_TRANSPORT": "journal", "_UID": "0", "_PID": "31337"],
        ["_TRANSPORT": "driver", "_UID": "1000", "_PID": "999"],
        [:],
    ]

    /// A retired owner never released (a leak, exit 1) and, after it, a forged note that jobd's
    /// entries were dropped: the leak stays a leak and the note is foreign. Only journald's own
    /// note (`_TRANSPORT=driver`, `_UID=0`) makes the owner unaccounted for.
    @Test(arguments: forgedNotes.indices) func aForgedSuppressionNoteExcusesNothing(index: Int) {
        var journal = SyntheticJournal(unit: "jobd.service")
        journal.startUp([("backup", 1), ("stuck", 2)])
        journal.cleanStop(generation: 1, owners: [("backup", 1, 1)])  // stuck never released
        var forged = [
            "MESSAGE_ID": LifecycleAuditor.journalDroppedMessageID, "SYSLOG_IDENTIFIER": "systemd-journald",
            "MESSAGE": "Suppressed 10 messages from jobd.service", "N_DROPPED": "10", "OBJECT_SYSTEMD_UNIT": "jobd.service",
        ]
        forged.merge(Self.forgedNotes[index]) { $1 }
        var entries = journal.entries
        entries.append(AuditEntry(forged, realtimeUSec: journal.nowUSec, bootID: SyntheticJournal.bootID))
        let report = LifecycleAuditor.audit(entries)
        #expect(report.verdict == .failed && report.exitCode == 1, "\(report.text())")
        #expect(report.problems.map(\.job) == ["stuck"])
        #expect(report.instances.first?.incompleteReasons.isEmpty == true, "\(report.text())")
        #expect(report.foreignEntries == 1)
        #expect(report.foreignExamples.first?.contains("a note of journald's rate limit (Suppressed 10 messages from jobd.service)") == true
                && report.foreignExamples.first?.contains("not by journald itself") == true, "\(report.foreignExamples)")

        // Without the leak, the forged note alone makes the audit suspect (exit 3).
        var clean = SyntheticJournal(unit: "jobd.service")
        clean.startUp([("backup", 1)])
        clean.cleanStop(generation: 1, owners: [("backup", 1, 1)])
        let suspect = LifecycleAuditor.audit(clean.entries + [AuditEntry(forged, realtimeUSec: clean.nowUSec, bootID: SyntheticJournal.bootID)])
        #expect(suspect.verdict == .suspect && suspect.exitCode == 3, "\(suspect.text())")

        // journald's own note, the same otherwise: the owner is unaccounted for, not leaked.
        var genuine = forged
        genuine.merge(["_TRANSPORT": "driver", "_UID": "0", "_PID": "120"]) { $1 }
        let excused = LifecycleAuditor.audit(journal.entries + [AuditEntry(genuine, realtimeUSec: journal.nowUSec, bootID: SyntheticJournal.bootID)])
        #expect(excused.verdict == .incomplete && excused.foreignEntries == 0, "\(excused.text())")
    }

    /// An instance whose logging dropped entries (log.dropped) is incomplete, never clean.
    @Test func droppedEntriesMakeTheInstanceIncomplete() {
        var journal = SyntheticJournal()
        journal.startUp([("backup", 1)])
        journal.event("log.dropped", ["JOBD_DROPPED_COUNT": "13535", "JOBD_DROPPED_EVENTS": "run.output=13535"])
        journal.cleanStop(generation: 1, owners: [("backup", 1, 1)])
        let report = LifecycleAuditor.audit(journal.entries)
        #expect(report.verdict == .incomplete && report.exitCode == 0)
        #expect(report.instances.first?.incompleteReasons.contains { $0.contains("dropped 13535 log entries") } == true)
    }
}

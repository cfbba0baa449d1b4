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

import Foundation
import JobdAudit
import Testing

/// The audit never calls unreadable evidence clean (issue 20 item 15): a jobd entry with a field it
/// judges by missing or not a number is counted, shown, and makes the verdict incomplete at best.
@Suite struct MalformedEntryTests {
    /// A clean run with `extra` logged in the middle.
    func journal(with extra: [(String, [String: String])]) -> SyntheticJournal {
        var journal = SyntheticJournal()
        journal.startUp([("backup", 1)])
        for (kind, fields) in extra { journal.event(kind, fields) }
        journal.cleanStop(generation: 1, owners: [("backup", 1, 1)])
        return journal
    }

    @Test func aNonNumericOwnerMakesACleanRunIncomplete() throws {
        let report = LifecycleAuditor.audit(journal(with: [
            ("timer.fire", ["JOB": "backup", "JOBD_OWNER": "x1", "JOBD_GENERATION": "1", "JOBD_TIMER": "101"]),
        ]).entries)
        #expect(report.verdict == .incomplete, "\(report.text())")
        #expect(report.exitCode == 0)
        #expect(report.malformedEntries == 1)
        let instance = try #require(report.instances.first)
        #expect(instance.malformedEntries == 1)
        #expect(instance.malformedExamples.map(\.event) == ["timer.fire"])
        #expect(instance.malformedExamples.first?.problem == "JOBD_OWNER='x1' is not a number")
        #expect(instance.incompleteReasons.contains { $0.contains("1 jobd entry could not be read") })
        let text = report.text()
        #expect(text.contains("UNREADABLE: timer.fire at "), "\(text)")
        #expect(text.contains("1 unreadable"))
        let json = String(decoding: report.jsonData(), as: UTF8.self)
        #expect(json.contains(#""malformedEntries" : 1"#))
        #expect(json.contains(#""field" : "JOBD_OWNER""#))
        #expect(try JSONDecoder().decode(AuditReport.self, from: Data(report.jsonData())) == report)
    }

    @Test(arguments: [
        ("daemon.ready", ["JOBD_GENERATION": "1", "JOBD_LEAK_GRACE_USEC": "soon"], "JOBD_LEAK_GRACE_USEC"),
        ("generation.load", [:], "JOBD_GENERATION"),
        ("owner.leak", ["JOB": "backup"], "JOBD_OWNER"),
        ("timer.invalidate", ["JOB": "x", "JOBD_OWNER": "0", "JOBD_TIMER": "-3", "JOBD_REASON": "shutdown"], "JOBD_TIMER"),
    ])
    func missingOrUnreadableFieldsAreCounted(event: String, fields: [String: String], field: String) throws {
        let report = LifecycleAuditor.audit(journal(with: [(event, fields)]).entries)
        #expect(report.verdict >= .incomplete, "\(report.text())")
        #expect(report.instances.first?.malformedExamples.first?.field == field)
    }

    @Test func theFirstFiveAreShownAndTheRestCounted() throws {
        let bad = (0..<7).map { index in ("owner.deinit", ["JOB": "ghost", "JOBD_OWNER": "n\(index)"]) }
        let report = LifecycleAuditor.audit(journal(with: bad).entries)
        let instance = try #require(report.instances.first)
        #expect(instance.malformedEntries == 7)
        #expect(instance.malformedExamples.map(\.value) == ["n0", "n1", "n2", "n3", "n4"])
        #expect(report.text().contains("UNREADABLE: … and 2 more"))
    }

    @Test func aWellFormedRunHasNoneAndStaysClean() {
        let report = LifecycleAuditor.audit(journal(with: []).entries)
        #expect(report.verdict == .clean)
        #expect(report.malformedEntries == 0)
        #expect(!report.text().contains("unreadable"))
    }
}

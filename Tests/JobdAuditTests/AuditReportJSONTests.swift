import Foundation
import JobdAudit
import Testing

/// `--json`'s schema: the keys the documentation promises, stable bytes, and a round trip.
@Suite struct AuditReportJSONTests {
    func leakingReport() -> AuditReport {
        var journal = SyntheticJournal()
        journal.startUp([("keep", 1), ("gone", 2)])
        journal.ownerRetain("keep", owner: 1, into: 2)
        journal.load(2)
        journal.advance(seconds: 6)
        journal.timerFire("keep", owner: 1, generation: 1)
        return LifecycleAuditor.audit(journal.entries)
    }

    @Test func documentedKeys() throws {
        let data = leakingReport().jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(data)) as? [String: Any])
        #expect(object["schemaVersion"] as? Int == 1)
        #expect(object["verdict"] as? String == "failed")
        #expect(object["exitCode"] as? Int == 1)
        #expect(object["leakGraceUSec"] as? Int == 5_000_000)
        let instance = try #require((object["instances"] as? [[String: Any]])?.first)
        for key in ["instance", "bootID", "firstEntryUSec", "lastEntryUSec", "startedUSec", "ending", "complete",
                    "incompleteReasons", "reloads", "failedReloads", "generations", "owners", "timers",
                    "unreleasedOwners", "problems", "verdict"] {
            #expect(instance[key] != nil, "instance key \(key)")
        }
        #expect(instance["exitedUSec"] == nil, "unknown values are absent, not null")
        #expect(instance["ending"] as? String == "cut-off")
        let owners = try #require(instance["owners"] as? [String: Int])
        #expect(Set(owners.keys) == ["created", "released", "carriedOver", "running", "pending", "leaked", "unaccounted", "unknownOrigin"])
        let problem = try #require((instance["problems"] as? [[String: Any]])?.first)
        #expect(problem["kind"] as? String == "leak")
        #expect(problem["job"] as? String == "gone")
        #expect(problem["owner"] as? Int == 2)
        #expect(problem["generation"] as? Int == 1)
        let unreleased = try #require(instance["unreleasedOwners"] as? [[String: Any]])
        #expect(unreleased.compactMap { $0["state"] as? String } == ["running", "leaked"])
    }

    @Test func stableAndDecodable() throws {
        let report = leakingReport()
        #expect(report.jsonData() == leakingReport().jsonData())
        let decoded = try JSONDecoder().decode(AuditReport.self, from: Data(report.jsonData()))
        #expect(decoded == report)
    }

    /// A report with every field of every part set, and awkward strings.
    static func fullReport() -> AuditReport {
        var owners = OwnerCounts()
        (owners.created, owners.released, owners.carriedOver, owners.running) = (10, 7, 2, 1)
        (owners.pending, owners.leaked, owners.unaccounted, owners.unknownOrigin) = (3, 4, 5, 6)
        var timers = TimerCounts()
        timers.scheduled = 12
        (timers.fired, timers.invalidated, timers.lateFiresDropped, timers.otherInvalidated) = (9, 8, 1, 2)
        timers.invalidatedByReason = ["shutdown": 3, "owner-deinit": 4, "reload": 1, "Owner": 2, "a-b": 5, "a": 6]
        let instance = InstanceReport(
            instance: String(repeating: "a", count: 32), bootID: String(repeating: "b", count: 32), firstEntryUSec: 1,
            lastEntryUSec: UInt64.max, startedUSec: 2, stoppedUSec: 3, exitedUSec: 4, ending: .cutOff, complete: false,
            incompleteReasons: ["the journal \"rotated\"", "tab\t/slash"], reloads: 5, failedReloads: 1,
            generations: [
                GenerationReport(generation: 1, loadedUSec: 10, endedUSec: 20, ending: .replaced, owners: owners, carriedIn: 0),
                GenerationReport(generation: 2, loadedUSec: nil, endedUSec: nil, ending: nil, owners: OwnerCounts(), carriedIn: 3),
            ],
            owners: owners, timers: timers,
            unreleasedOwners: [
                UnreleasedOwner(job: "é/job", owner: 7, generation: 1, lastGeneration: 2, state: .leaked, retiredUSec: 30),
                UnreleasedOwner(job: "x", owner: 8, generation: nil, lastGeneration: nil, state: .unaccounted, retiredUSec: nil),
            ],
            problems: [
                AuditProblem(kind: .fireAfterDeinit, job: "j", owner: 1, generation: 2, timer: 3, realtimeUSec: 4, detail: "d \u{1}"),
                AuditProblem(kind: .timerNotInvalidated, job: nil, owner: nil, generation: nil, timer: nil, realtimeUSec: nil, detail: ""),
            ],
            verdict: .failed, malformedEntries: 2,
            malformedExamples: [
                MalformedEntry(realtimeUSec: 9, event: "owner.init", field: "JOBD_OWNER", value: "x"),
                MalformedEntry(realtimeUSec: 10, event: "timer.fire", field: "JOBD_TIMER", value: nil),
            ])
        let timersOnly = InstanceReport(
            instance: "c", bootID: "d", firstEntryUSec: 0, lastEntryUSec: 0, startedUSec: nil, stoppedUSec: nil, exitedUSec: nil,
            ending: .exited, complete: true, incompleteReasons: [], reloads: 0, failedReloads: 0, generations: [],
            owners: OwnerCounts(), timers: TimerCounts(), unreleasedOwners: [], problems: [], verdict: .clean)
        return AuditReport(
            leakGraceUSec: 5_000_000, entries: 100, unattributedEntries: 2,
            journalEnd: JournalInstant(realtimeUSec: 11, monotonicUSec: 12, bootID: "e"), instances: [instance, timersOnly],
            foreignEntries: 1, foreignExamples: ["MESSAGE=\"forged\""])
    }

    /// `jobctl audit --json` prints the same bytes as when `JSONEncoder` wrote them (pretty, keys
    /// sorted, `/` as it is): written by hand now (issue 30), checked against it.
    @Test func writtenAsJSONEncoderWroteIt() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let empty = AuditReport(leakGraceUSec: 0, entries: 0, unattributedEntries: 0, journalEnd: nil, instances: [])
        for report in [Self.fullReport(), leakingReport(), empty] {
            let written = String(decoding: report.jsonData(), as: UTF8.self)
            #expect(written == String(decoding: try encoder.encode(report), as: UTF8.self), "\(written)")
        }
    }

    /// The start of the text, spelled out: a script that reads it sees what it always saw.
    @Test func theTextIsPinned() {
        let text = String(decoding: Self.fullReport().jsonData(), as: UTF8.self)
        #expect(text.hasPrefix("""
            {
              "entries" : 100,
              "exitCode" : 1,
              "foreignEntries" : 1,
              "foreignExamples" : [
                "MESSAGE=\\"forged\\""
              ],
              "instances" : [
                {
                  "bootID" : "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
            """))
        #expect(text.hasSuffix("""
              "journalEnd" : {
                "bootID" : "e",
                "monotonicUSec" : 12,
                "realtimeUSec" : 11
              },
              "leakGraceUSec" : 5000000,
              "malformedEntries" : 2,
              "schemaVersion" : 1,
              "unattributedEntries" : 2,
              "verdict" : "failed"
            }
            """))
    }
}

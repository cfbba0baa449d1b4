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
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
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
        let decoded = try JSONDecoder().decode(AuditReport.self, from: report.jsonData())
        #expect(decoded == report)
    }
}

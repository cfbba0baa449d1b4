import JobdConfig
import JobdRunner
import Testing

/// Issue 37: a user's job is her account's by the uid recorded at load, so a run whose name now
/// resolves to another uid (the account deleted and created again) does not start as the newcomer.
@Suite struct OwnerRefusalTests {
    func job(owner: String?, uid: UInt32?) throws -> JobDefinition {
        var definition = try JobFileReader.read(name: "alice:backup", path: "/alice.job", text: "[Job]\nExecStart=/bin/true\n").get()
        definition.owningUser = owner
        definition.owningUID = uid
        return definition
    }

    @Test func aUsersJobRunsOnlyAsTheUIDItWasLoadedAs() throws {
        let alice = try job(owner: "alice", uid: 1001)
        #expect(SystemRunDriver.ownerRefusal(alice, runsAs: 1001) == nil)
        let refusal = try #require(SystemRunDriver.ownerRefusal(alice, runsAs: 1005))
        #expect(refusal.contains("uid 1005, not uid 1001"))
        // Root's jobs run as whatever User= names now.
        #expect(SystemRunDriver.ownerRefusal(try job(owner: nil, uid: nil), runsAs: 33) == nil)
    }
}

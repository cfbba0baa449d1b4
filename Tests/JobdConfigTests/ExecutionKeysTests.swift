import JobdConfig
import Testing

/// The keys that say how a job runs: its account, environment files, limits and overlap policy.
@Suite struct ExecutionKeysTests {
    let path = "/etc/jobd/jobs.d/backup.job"

    func read(_ keys: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "backup", path: path, text: "[Job]\nExecStart=/bin/true\nOnStartupSec=1\n" + keys)
    }

    func errors(_ keys: String) -> [ConfigError] {
        if case .failure(let errors) = read(keys) { errors.errors } else { [] }
    }

    @Test func defaultsAreSystemdsAndSkipOnOverlap() throws {
        let definition = try read("").get()
        #expect(definition.user == nil && definition.group == nil)
        #expect(definition.environmentFiles.isEmpty)
        #expect(definition.runtimeMax == .infinity)
        #expect(definition.stopTimeout == .seconds(10))
        #expect(definition.overlap == .skip)
    }

    @Test func everyKeyIsRead() throws {
        let definition = try read("""
            User=nobody
            Group=nogroup
            EnvironmentFile=/etc/jobd/backup.env
            EnvironmentFile=-/etc/jobd/optional.env
            RuntimeMaxSec=5min
            TimeoutStopSec=30s
            Overlap=replace
            """).get()
        #expect(definition.user == "nobody")
        #expect(definition.group == "nogroup")
        #expect(definition.environmentFiles == [
            EnvironmentFile(path: "/etc/jobd/backup.env", optional: false),
            EnvironmentFile(path: "/etc/jobd/optional.env", optional: true),
        ])
        #expect(definition.runtimeMax == .seconds(300))
        #expect(definition.stopTimeout == .seconds(30))
        #expect(definition.overlap == .replace)
    }

    @Test func emptyAssignmentsReset() throws {
        let definition = try read("""
            EnvironmentFile=/a.env
            EnvironmentFile=
            EnvironmentFile=/b.env
            RuntimeMaxSec=1h
            RuntimeMaxSec=
            Overlap=queue
            Overlap=
            """).get()
        #expect(definition.environmentFiles == [EnvironmentFile(path: "/b.env", optional: false)])
        #expect(definition.runtimeMax == .infinity)
        #expect(definition.overlap == .skip)
    }

    @Test(arguments: OverlapPolicy.allCases)
    func everyOverlapPolicyIsAccepted(policy: OverlapPolicy) throws {
        #expect(try read("Overlap=\(policy.rawValue)\n").get().overlap == policy)
    }

    @Test func unknownUserIsAnErrorAtLoadNamingTheLine() throws {
        let error = try #require(errors("User=no-such-user-jobd\n").first)
        #expect(error.file == path)
        #expect(error.line == 4)
        #expect(error.message == "User=: no such user 'no-such-user-jobd'")
        #expect(error.hint?.contains("adduser") == true)
    }

    @Test func unknownGroupIsAnErrorAtLoadNamingTheLine() throws {
        let error = try #require(errors("User=nobody\nGroup=no-such-group-jobd\n").first)
        #expect(error.line == 5)
        #expect(error.message == "Group=: no such group 'no-such-group-jobd'")
    }

    @Test func badValuesNameTheLineAndWhatWasExpected() throws {
        let found = errors("""
            Overlap=sometimes
            RuntimeMaxSec=soon
            EnvironmentFile=relative.env
            TimeoutStopSec=-1
            """)
        #expect(found.map(\.line) == [4, 5, 6, 7])
        #expect(found[0].hint == "write one of skip, queue, replace, parallel")
        #expect(found[1].message.hasPrefix("RuntimeMaxSec=: invalid time span 'soon'"))
        #expect(found[2].message == "EnvironmentFile= must be an absolute path, found 'relative.env'")
        #expect(found[3].message.hasPrefix("TimeoutStopSec=: invalid time span"))
    }

    @Test func misspelledNewKeysAreMatched() throws {
        #expect(errors("RuntimeMaxSecs=1\n").first?.hint == "did you mean 'RuntimeMaxSec='?")
        #expect(errors("EnvironmentFiles=/x\n").first?.hint == "did you mean 'EnvironmentFile='?")
        #expect(errors("overlap=skip\n").first?.hint == "did you mean 'Overlap='?")
    }

    @Test func userAndGroupResolveToTheirIDs() throws {
        let account = try #require(try Account.resolve(user: "nobody", group: nil))
        #expect(account.uid == 65_534)
        #expect(account.gid == 65_534)
        #expect(account.home == "/nonexistent")
        #expect(account.supplementaryGroups == [65_534])
        let numeric = try #require(try Account.resolve(user: "0", group: "nogroup"))
        #expect(numeric.userName == "root" && numeric.uid == 0 && numeric.gid == 65_534)
        #expect(numeric.supplementaryGroups?.first == 65_534)
    }

    @Test func killModeIsControlGroupOrProcess() throws {
        #expect(try read("").get().killMode == .controlGroup)
        #expect(try read("KillMode=process\n").get().killMode == .process)
        let error = try #require(errors("KillMode=mixed\n").first)
        #expect(error.message == "KillMode=: 'mixed' is not a kill mode" && error.line == 4)
    }
}

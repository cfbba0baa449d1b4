import JobdConfig
import Testing

/// `[Fleet]` in jobd.conf and `RunOn=` in job files: what is accepted, and the FILE:LINE errors of what is not.
@Suite struct FleetSettingsTests {
    static func settings(_ text: String) -> Result<DaemonSettings, ConfigErrors> {
        DaemonSettings.read(path: "/etc/jobd/jobd.conf", text: text)
    }

    @Test func noSectionIsASingleMachine() throws {
        #expect(try Self.settings("[Daemon]\nMaxConcurrentRuns=4\n").get().fleet == nil)
    }

    @Test func aFullSection() throws {
        let fleet = try #require(try Self.settings("""
            [Fleet]
            Database=postgresql://jobd@db.example.org:6432/ops?sslmode=verify-full&sslrootcert=/etc/jobd/ca.pem
            PasswordFile=/etc/jobd/fleet.password
            Node=web-1
            LeaseSec=45s
            MaxClockSkewSec=500ms
            Schema=jobd_prod
            MaxRetentionSec=90d
            """).get().fleet)
        #expect(fleet.database == "postgresql://jobd@db.example.org:6432/ops?sslmode=verify-full&sslrootcert=/etc/jobd/ca.pem")
        #expect(fleet.passwordFile == "/etc/jobd/fleet.password" && fleet.node == "web-1" && fleet.schema == "jobd_prod")
        #expect(fleet.lease == .seconds(45) && fleet.maxClockSkew == TimeSpan(microseconds: 500_000))
        #expect(fleet.retention == .seconds(90 * 86_400))
    }

    /// `0`, as journald.conf's MaxRetentionSec= reads it, and `infinity` keep every claim.
    @Test(arguments: ["0", "infinity"]) func retentionOffKeepsEverything(value: String) throws {
        let fleet = try #require(try Self.settings("[Fleet]\nDatabase=postgres://jobd@db/jobd\nMaxRetentionSec=\(value)\n").get().fleet)
        #expect(fleet.retention.isInfinite)
    }

    @Test func defaults() throws {
        let fleet = try #require(try Self.settings("[Fleet]\nDatabase=postgres://jobd@[::1]/jobd\n").get().fleet)
        #expect(fleet.database == "postgres://jobd@[::1]/jobd" && fleet.passwordFile == nil)
        #expect(fleet.node == FleetSettings.hostName() && fleet.lease == .seconds(30) && fleet.schema == "jobd")
        #expect(fleet.retention == .seconds(30 * 86_400))
    }

    /// `Database=` goes to the check it is given (libpq's parser, in JobdFleet), whose words the
    /// error carries with the file and line; without a check any value is taken as it is.
    @Test func databaseIsCheckedByTheGivenCheck() throws {
        let text = "[Fleet]\nNode=a\nDatabase=host=db dbname=jobd\n"
        let refused = DaemonSettings.read(path: "/etc/jobd/jobd.conf", text: text) { value in
            FleetSettings.DatabaseProblem(message: "not '\(value)'", hint: "write another")
        }
        guard case .failure(let failure) = refused else { Issue.record("accepted"); return }
        #expect(failure.description == "/etc/jobd/jobd.conf:3: error: Database=: not 'host=db dbname=jobd'\n/etc/jobd/jobd.conf:3: note: write another")
        #expect(try DaemonSettings.read(path: "/etc/jobd/jobd.conf", text: text) { _ in nil }.get().fleet?.database == "host=db dbname=jobd")
    }

    /// Each row: the section's body, the line and the words of the error.
    static let broken: [(String, Int, String)] = [
        ("Node=a\n", 1, "[Fleet] has no Database="),
        ("Database=\n", 2, "Database= is empty"),
        ("Database=postgresql://jobd@db/jobd\nLeaseSec=0\n", 3, "LeaseSec="),
        ("Database=postgresql://jobd@db/jobd\nPasswordFile=fleet.pw\n", 3, "is not an absolute path"),
        ("Database=postgresql://jobd@db/jobd\nSchema=Drop Table\n", 3, "is not a plain schema name"),
        ("Database=postgresql://jobd@db/jobd\nLease=30s\n", 3, "did you mean 'LeaseSec='?"),
        ("Database=postgresql://jobd@db/jobd\nMaxRetentionSec=a month\n", 3, "MaxRetentionSec="),
    ]

    @Test(arguments: broken)
    func errorsNameTheLine(body: String, line: Int, words: String) throws {
        guard case .failure(let failure) = Self.settings("[Fleet]\n" + body) else { Issue.record("accepted: \(body)"); return }
        let error = try #require(failure.errors.first)
        #expect(error.line == line, "\(error)")
        #expect(error.description.contains("/etc/jobd/jobd.conf:\(line): error:") && error.description.contains(words), "\(error)")
    }

    static func job(_ keys: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "report", path: "/etc/jobd/jobs.d/report.job", text: "[Job]\nExecStart=/bin/true\n" + keys)
    }

    @Test func runOn() throws {
        #expect(try Self.job("OnCalendar=daily\n").get().runOn == .everyNode)
        #expect(try Self.job("OnCalendar=daily\nRunOn=one-node\n").get().runOn == .oneNode)
        #expect(try Self.job("Cron=0 3 * * *\nRunOn=one-node\n").get().runOn == .oneNode)
        #expect(try Self.job("OnUnitActiveSec=1h\nRunOn=every-node\n").get().runOn == .everyNode)
    }

    static let rejected: [(String, Int, String)] = [
        ("OnCalendar=daily\nRunOn=some-nodes\n", 4, "RunOn=: 'some-nodes' is not a place to run"),
        ("OnUnitActiveSec=1h\nRunOn=one-node\n", 3, "OnUnitActiveSec= cannot trigger a RunOn=one-node job (RunOn= is on line 4)"),
        ("RunOn=one-node\nOnStartupSec=5min\n", 4, "OnStartupSec= cannot trigger a RunOn=one-node job"),
        ("RunOn=one-node\nCron=@reboot\n", 4, "Cron= cannot trigger a RunOn=one-node job"),
    ]

    @Test(arguments: rejected)
    func fleetJobsTakeCalendarTriggersOnly(keys: String, line: Int, words: String) throws {
        guard case .failure(let failure) = Self.job(keys) else { Issue.record("accepted: \(keys)"); return }
        let error = try #require(failure.errors.first)
        #expect(error.line == line && error.description.contains("report.job:\(line): error: " + words), "\(error)")
    }
}

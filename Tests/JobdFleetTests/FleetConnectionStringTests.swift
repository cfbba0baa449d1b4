import JobdConfig
@testable import JobdFleet
import Testing

/// `Database=` as libpq reads it (`PQconninfoParse`), checked as jobd.conf is read: any connection
/// string or URI libpq takes, none with a password, and errors that name the file and line.
@Suite struct FleetConnectionStringTests {
    static func read(_ database: String) -> Result<DaemonSettings, ConfigErrors> {
        DaemonSettings.read(path: "/etc/jobd/jobd.conf", text: "[Fleet]\nDatabase=\(database)\n",
                            databaseCheck: FleetConnectionString.check)
    }

    static let accepted = [
        "postgresql://jobd@db.example.org:6432/ops?sslmode=verify-full&sslrootcert=/etc/jobd/ca.pem",
        "postgres://a%40b%20c@[::1]/jobd",
        "postgresql://jobd@db1:5432,db2:5432/ops?target_session_attrs=read-write",
        "host=db.example.org port=6432 dbname=ops user=jobd sslmode=require",
        "service=fleet",
    ]

    @Test(arguments: accepted) func libpqsConnectionStringsAreTaken(database: String) throws {
        #expect(try Self.read(database).get().fleet?.database == database)
    }

    /// Each row: `Database=`, and the words of the error on line 2.
    static let refused: [(String, String)] = [
        ("postgresql://jobd:secret@db/jobd", "Database=: it holds a password"),
        ("host=db user=jobd password=secret", "Database=: it holds a password"),
        ("postgresql://jobd@db/jobd?sslmode=sometimes", "sslmode=sometimes is not a TLS mode"),
        ("mysql://jobd@db/jobd", "is not a libpq connection string or URI"),
        ("host=db dbname", "is not a libpq connection string or URI"),
        ("postgresql://jobd@db/jobd?colour=blue", "invalid URI query parameter: \"colour\""),
    ]

    @Test(arguments: refused) func errorsNameTheLine(database: String, words: String) throws {
        guard case .failure(let failure) = Self.read(database) else { Issue.record("accepted: \(database)"); return }
        let error = try #require(failure.errors.first)
        #expect(error.line == 2 && error.description.contains("/etc/jobd/jobd.conf:2: error: ") && error.description.contains(words),
                "\(error)")
    }

    /// jobd's defaults come before `Database=`, which overrides them; `PasswordFile=` after it.
    @Test func jobdsDefaultsComeBeforeTheDatabaseAndThePasswordFileAfter() throws {
        var settings = FleetSettings(database: "postgresql://jobd@db/ops", node: "a")
        let defaults = try FleetConnectionString.parameters(settings, timeout: .seconds(5))
        #expect(defaults.map(\.0) == ["sslmode", "sslrootcert", "tcp_user_timeout", "fallback_application_name", "dbname"])
        #expect(defaults[0].1 == "verify-full" && defaults[1].1 == "/etc/ssl/certs/ca-certificates.crt" && defaults[2].1 == "5000")
        // A mode that verifies nothing gets no CA file: with one, libpq would verify `require` as `verify-ca`.
        settings.database = "host=db dbname=ops user=jobd sslmode=require"
        #expect(!(try FleetConnectionString.parameters(settings, timeout: .seconds(5))).contains { $0.0 == "sslrootcert" })
        settings.database = "host=db sslrootcert=/etc/jobd/ca.pem"
        #expect(try FleetConnectionString.parameters(settings, timeout: .seconds(5)).filter { $0.0 == "sslrootcert" }.isEmpty)
        settings.database = "host=db password=x"
        #expect(throws: FleetError.self) { try FleetConnectionString.parameters(settings, timeout: .seconds(5)) }
    }
}

/// Which format a `PasswordFile=` is in: libpq's passfile, or jobd's older password on a line.
struct PasswordFileFormatTests {
    @Test(arguments: [
        ("*:*:*:*:secret\n", true), ("# comment\n127.0.0.1:5432:fleet:jobd:pa\\:ss\n\n", true), ("host:5432:db:user:pass:with:colons\n", true),
        ("secret\n", false), ("se:cr:et\n", false), ("a\\:b:c:d:e\n", false), ("", false), ("*:*:*:*:x\nplain\n", false),
    ])
    func aPassfileHasFourSeparatorsOnEveryLine(text: String, isPassfile: Bool) {
        #expect(FleetConnectionString.isPassfile(text) == isPassfile, "\(text)")
    }
}

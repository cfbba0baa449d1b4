import Foundation
import JobdConfig
import JobdTestKit
import Testing

/// `jobctl security` and `jobctl list --json`'s `exposureTenths` through jobd (issue 27): the
/// scores jobd computes from the definitions it runs, in systemd-analyze security's layout, and
/// only the overall score for a reader who cannot read the job file.
extension JobctlTests {
    static let boxed = """
        [Job]
        OnStartupSec=1h
        ExecStart=/bin/true
        User=nobody
        PrivateTmp=yes
        ProtectSystem=strict
        ProtectHome=yes
        NoNewPrivileges=yes
        PrivateNetwork=yes
        SystemCallFilter=@system-service

        """

    static func expectedTenths(_ name: String, _ text: String) throws -> Int {
        SecurityExposure.exposureTenths(of: try JobFileReader.read(name: name, path: "/\(name).job", text: text).get())
    }

    @Test func securityShowsTheScoresJobdComputes() throws {
        let setup = try Setup(jobs: ["open": Self.hourly, "boxed": Self.boxed])
        let open = try Self.expectedTenths("open", Self.hourly), boxed = try Self.expectedTenths("boxed", Self.boxed)
        #expect(open == 96 && boxed < open)

        let (status, overview) = try setup.jobctl(["security"])
        #expect(status == 0, "\(overview)")
        let rows = overview.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.first == ["JOB", "EXPOSURE", "PREDICATE", "HAPPY"], "\(overview)")
        #expect(rows.dropFirst().map(\.first) == ["boxed", "open"], "by name: \(overview)")
        #expect(rows.last?.dropFirst().first == "9.6" && rows.last?.dropFirst(2).first == "UNSAFE", "\(overview)")
        #expect(rows.dropFirst().first?.dropFirst().first == SecurityExposure.text(tenths: boxed), "\(overview)")

        let (detailStatus, details) = try setup.jobctl(["security", "boxed"])
        #expect(detailStatus == 0, "\(details)")
        let lines = details.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("  NAME") == true && lines.first?.hasSuffix("EXPOSURE") == true, "\(details)")
        #expect(lines.contains { $0.hasPrefix("✓ PrivateNetwork=") && $0.hasSuffix("Service has no access to the host's network") }, "\(details)")
        #expect(lines.contains { $0.hasPrefix("✗ PrivateDevices=") && $0.hasSuffix("0.2") }, "\(details)")
        #expect(lines.contains { $0.hasPrefix("✗ User=/DynamicUser=") && $0.contains("Service runs under as 'nobody' user") }, "\(details)")
        #expect(lines.filter { $0.hasPrefix("✓ ") || $0.hasPrefix("✗ ") || $0.hasPrefix("  ") }.count == 82, "a header and 81 checks: \(details)")
        let predicate = SecurityExposure.Predicate(exposureTenths: boxed)
        #expect(lines.last == "→ Overall exposure level for boxed: \(SecurityExposure.text(tenths: boxed)) \(predicate.rawValue) \(predicate.face)",
                "\(details)")

        let (_, json) = try setup.jobctl(["list", "--json"])
        let jobs = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let scores = Dictionary(uniqueKeysWithValues: jobs.map { ($0["name"] as? String ?? "", $0["exposureTenths"] as? Int) })
        #expect(scores["open"] == open && scores["boxed"] == boxed, "\(json)")

        // --threshold as systemd-analyze's: above it, exit 1.
        #expect(try setup.jobctl(["security", "--threshold", "95", "open"]).0 == 1)
        #expect(try setup.jobctl(["security", "--threshold", "96", "open", "boxed"]).0 == 0)
        let (missing, missingOutput) = try setup.jobctl(["security", "nosuchjob"])
        #expect(missing == 1, "\(missingOutput)")
    }

    /// A reader (group jobd) sees a job's checks only if it could read the job file, as its command.
    @Test func securityShowsAReaderOnlyTheScoreOfAFileItCannotRead() throws {
        let (config, runtime, daemon) = try Self.daemonWithReaders(jobs: ["open": Self.hourly, "secret": Self.boxed])
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
            withExtendedLifetime(config) {}
        }
        chmod(config.path + "/jobs.d", 0o755)
        chmod(config.path + "/jobs.d/open.job", 0o644)
        chmod(config.path + "/jobs.d/secret.job", 0o600)
        func jobctl(_ arguments: [String]) throws -> (Int32, String) {
            try Jobctl(runtime: runtime, environment: nil)(arguments, as: Self.nobody)
        }
        let (openStatus, open) = try jobctl(["security", "open"])
        #expect(openStatus == 0 && open.contains("✗ PrivateNetwork="), "\(open)")
        let (secretStatus, secret) = try jobctl(["security", "secret"])
        #expect(secretStatus == 0 && !secret.contains("PrivateNetwork") && secret.contains("not shown"), "\(secret)")
        #expect(secret.contains("→ Overall exposure level for secret: \(SecurityExposure.text(tenths: try Self.expectedTenths("secret", Self.boxed)))"),
                "\(secret)")
        // Outside the group: a user's own jobs only (issue 29), so none of these, and a job of root's is refused.
        let outsider = Jobctl(runtime: runtime, environment: nil)
        let (_, listed) = try outsider(["security"], as: (uid: 65_534, gid: 100))
        #expect(!listed.contains("open") && !listed.contains("secret"), "\(listed)")
        let (refused, refusal) = try outsider(["security", "secret"], as: (uid: 65_534, gid: 100))
        #expect(refused == 4 && refusal.contains("permission denied"), "\(refusal)")
    }
}

import Foundation
import JobdTestKit
import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile

/// `jobctl security`'s scores against systemd 252's `systemd-analyze security --offline=true`
/// (issue 27): for each key set, jobd's exposure of the job is systemd's of a service with the
/// same keys, row by row, once that service also says what every jobd run has (`PrivateMounts=yes`
/// where a key gives the run a mount namespace: systemd 252's offline reading counts that only when
/// written out; a run's session keyring is its own, as systemd's default `KeyringMode=private`). Against the services with
/// the same keys alone (for Debian's timers, their own .service files), the ranking is the same.
/// man-db's, logrotate's and fstrim's jobs are what `jobctl import timer` writes from Debian's units.
@Suite(.serialized) struct SecurityAcceptanceTests {
    static let unitDirectory = "/lib/systemd/system"
    static let analyze = "/usr/bin/systemd-analyze"
    static let imported = ["man-db", "logrotate", "fstrim"]
    /// Jobs written by hand: unconfined, and mixes of what jobd and systemd both take.
    static let written: [(name: String, keys: String)] = [
        ("unconfined", ""),
        ("nobody-umask", "User=nobody\nUMask=0077\nNoNewPrivileges=yes\n"),
        ("backup-strict", """
            User=backup
            SupplementaryGroups=adm
            ProtectSystem=strict
            ProtectHome=read-only
            PrivateTmp=yes
            NoNewPrivileges=yes
            CapabilityBoundingSet=
            SystemCallFilter=@system-service
            RestrictNamespaces=yes
            RestrictSUIDSGID=yes

            """),
        ("deny-list", """
            PrivateNetwork=yes
            SystemCallFilter=~@privileged @resources @obsolete
            SystemCallErrorNumber=EPERM
            RestrictNamespaces=~user net
            LockPersonality=yes
            AmbientCapabilities=CAP_NET_BIND_SERVICE
            CapabilityBoundingSet=CAP_NET_BIND_SERVICE CAP_CHOWN

            """),
        ("paths-only", "ProtectKernelLogs=yes\nReadOnlyPaths=/srv\nProtectHome=tmpfs\nProtectSystem=yes\nUMask=0027\n"),
    ]
    /// The keys a service takes as they are, besides the sandbox's.
    static let serviceKeys: Set<String> = Sandbox.keys.union(["User", "Group", "SupplementaryGroups", "UMask"])

    struct Verdict: CustomStringConvertible {
        var tenths: Int
        /// Each check's description and exposure (empty when it adds nothing), by id.
        var rows: [String: String]
        var description: String { SecurityExposure.text(tenths: tenths) }
    }

    /// systemd-analyze's verdict on a service with `body` in its [Service] section.
    static func systemd(_ name: String, _ body: String, in directory: String) throws -> Verdict {
        let path = "\(directory)/\(name).service"
        try "[Service]\nType=oneshot\nExecStart=/bin/true\n\(body)".write(toFile: path, atomically: true, encoding: .utf8)
        return try systemd(path)
    }

    static func systemd(_ path: String) throws -> Verdict {
        let result = try CapturedProcess.run(analyze, ["security", "--offline=true", "--no-pager", path],
                                             environment: ["LC_ALL": "C.UTF-8", "SYSTEMD_COLORS": "0", "PATH": "/usr/bin:/bin", "COLUMNS": "300"])
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        guard let overall = lines.last(where: { $0.contains("Overall exposure level for") }),
              let score = overall.split(separator: " ").first(where: { $0.contains(".") && Double($0) != nil }),
              let parts = Optional(score.split(separator: ".")), parts.count == 2, let whole = Int(parts[0]), let tenth = Int(parts[1])
        else { throw Failure("systemd-analyze security \(path) printed no exposure:\n\(result.standardOutput)\(result.standardError)") }
        var rows: [String: String] = [:]
        for line in lines.dropFirst() where line.count > 2 && !line.contains("Overall exposure level") {
            let rest = line.dropFirst(2)
            guard let id = rest.split(separator: " ").first else { continue }
            var text = rest.dropFirst(id.count).trimmingCharacters(in: .whitespaces)
            var exposure = ""
            if let last = text.split(separator: " ").last, last.contains("."), Double(last) != nil {
                exposure = String(last)
                text = String(text.dropLast(last.count)).trimmingCharacters(in: .whitespaces)
            }
            rows[String(id)] = text + " | " + exposure
        }
        return Verdict(tenths: whole * 10 + tenth, rows: rows)
    }

    /// jobd's verdict on a job file.
    static func jobd(_ definition: JobDefinition) -> Verdict {
        let exposure = SecurityExposure(definition)
        var rows: [String: String] = [:]
        for check in exposure.checks {
            rows[check.id] = check.description + " | " + (check.exposureTenths.map(SecurityExposure.text(tenths:)) ?? "")
        }
        return Verdict(tenths: exposure.exposureTenths, rows: rows)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test func exposureIsSystemdsForTheSameKeysAndRanksAlike() throws {
        let units = Self.imported.flatMap { ["\(Self.unitDirectory)/\($0).timer", "\(Self.unitDirectory)/\($0).service"] }
        for path in units + [Self.analyze] { try Requirement.tools(path, for: "the comparison with systemd-analyze security") }
        let config = try TemporaryConfiguration()
        let jobs = config.path + "/jobs.d", services = config.path + "/services"
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        for timer in Self.imported {
            let importer = try DaemonProcess(product: "jobctl", arguments: ["import", "timer", "\(Self.unitDirectory)/\(timer).timer", "--output", jobs])
            _ = try importer.waitForExit()
            #expect(FileManager.default.fileExists(atPath: "\(jobs)/\(timer).job"), "\(importer.lines)")
        }
        for job in Self.written {
            try "[Job]\nOnCalendar=daily\nExecStart=/bin/true\n\(job.keys)".write(toFile: "\(jobs)/\(job.name).job", atomically: true, encoding: .utf8)
        }

        var jobd: [String: Verdict] = [:], same: [String: Verdict] = [:], plain: [String: Verdict] = [:]
        for name in Self.imported + Self.written.map(\.name) {
            let text = try String(contentsOfFile: "\(jobs)/\(name).job", encoding: .utf8)
            let definition = try JobFileReader.read(name: name, path: "\(jobs)/\(name).job", text: text).get()
            let keys = UnitFile.parse(text, path: name).0.assignments.filter { Self.serviceKeys.contains($0.key) }
                .map { "\($0.key)=\($0.value)\n" }.joined()
            jobd[name] = Self.jobd(definition)
            let implied = definition.sandbox.needsMountNamespace ? "PrivateMounts=yes\n" : ""
            same[name] = try Self.systemd(name, keys + implied, in: services)
            plain[name] = try Self.imported.contains(name)
                ? Self.systemd("\(Self.unitDirectory)/\(name).service") : Self.systemd("\(name)-plain", keys, in: services)
        }

        for name in jobd.keys.sorted() {
            let (ours, theirs) = (jobd[name]!, same[name]!)
            #expect(ours.tenths == theirs.tenths, "\(name): jobd \(ours), systemd-analyze \(theirs) (without jobd's implied keys: \(plain[name]!))")
            #expect(Set(ours.rows.keys) == Set(theirs.rows.keys), "\(name): checks jobd \(ours.rows.keys.sorted()) systemd \(theirs.rows.keys.sorted())")
            for (id, row) in ours.rows.sorted(by: { $0.key < $1.key }) where theirs.rows[id] != row {
                Issue.record("\(name), \(id): jobd '\(row)', systemd-analyze '\(theirs.rows[id] ?? "none")'")
            }
        }
        // The same order, ties included, as systemd-analyze's for the services with the same keys.
        let names = jobd.keys.sorted()
        for a in names {
            for b in names where a < b {
                let ours = jobd[a]!.tenths - jobd[b]!.tenths, theirs = plain[a]!.tenths - plain[b]!.tenths
                #expect(ours.signum() == theirs.signum(),
                        "\(a) against \(b): jobd \(jobd[a]!) and \(jobd[b]!), systemd-analyze \(plain[a]!) and \(plain[b]!)")
            }
        }
    }
}

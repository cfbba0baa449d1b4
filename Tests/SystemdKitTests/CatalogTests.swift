import Foundation
import JobdLogging
import JobdTestKit
import Testing

extension ProcessWideTests {
    @Suite struct CatalogTests {
        static let catalogURL = packageRoot.appendingPathComponent("systemd/jobd.catalog")

        /// The committed file is what ``JobdCatalog/render()`` produces. Run with
        /// `JOBD_UPDATE_CATALOG=1` to rewrite it after changing a text or adding an event kind.
        @Test func catalogFileIsUpToDate() throws {
            let rendered = JobdCatalog.render()
            if ProcessInfo.processInfo.environment["JOBD_UPDATE_CATALOG"] == "1" {
                try FileManager.default.createDirectory(
                    at: Self.catalogURL.deletingLastPathComponent(), withIntermediateDirectories: true)
                try rendered.write(to: Self.catalogURL, atomically: true, encoding: .utf8)
            }
            let file = try String(contentsOf: Self.catalogURL, encoding: .utf8)
            #expect(file == rendered, "systemd/jobd.catalog is stale: run swift test with JOBD_UPDATE_CATALOG=1")
        }

        @Test func everyEventHasAnEntryWithItsMessageID() throws {
            let file = try String(contentsOf: Self.catalogURL, encoding: .utf8)
            let entries = file.components(separatedBy: "\n-- ").dropFirst()
            var headers: [String: [String]] = [:]
            for entry in entries {
                let lines = entry.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                headers[lines[0]] = Array(lines.dropFirst().prefix { !$0.isEmpty })
            }
            #expect(headers.count == JobdEvent.allCases.count)
            for kind in JobdEvent.allCases {
                let header = try #require(headers[kind.messageID], "no catalog entry for \(kind.rawValue)")
                #expect(header.contains("Defined-By: jobd"), "\(kind.rawValue)")
                #expect(header.contains { $0.hasPrefix("Subject: ") && $0.count > 12 }, "\(kind.rawValue)")
            }
        }

        /// Message ids are written out per kind; two kinds sharing one would share a catalog entry.
        @Test func messageIDsAreDistinctAndWellFormed() {
            let ids = JobdEvent.allCases.map(\.messageID)
            #expect(Set(ids).count == ids.count)
            for id in ids {
                #expect(id.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(id)")
            }
        }

        /// journalctl itself accepts the file: `--update-catalog` into a private root, then every id is
        /// listed with its subject. Nothing of the host's catalog database changes.
        @Test func journalctlCompilesTheCatalog() throws {
            let journalctl = "/usr/bin/journalctl"
            try Requirement.tools(journalctl, for: "compiling the catalog")
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("jobd-catalog-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let catalogDirectory = root.appendingPathComponent("usr/lib/systemd/catalog")
            try FileManager.default.createDirectory(at: catalogDirectory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Self.catalogURL, to: catalogDirectory.appendingPathComponent("jobd.catalog"))

            let update = try CapturedProcess.run(journalctl, ["--root=\(root.path)", "--update-catalog"])
            #expect(update.status == 0)
            #expect(update.standardError.isEmpty, "journalctl complained: \(update.standardError)")
            let list = try CapturedProcess.run(journalctl, ["--root=\(root.path)", "--list-catalog"])
            #expect(list.status == 0)
            for kind in JobdEvent.allCases {
                let subject = JobdCatalog.entry(for: kind).subject
                #expect(list.standardOutput.contains("\(kind.messageID) jobd: \(subject)"), "\(kind.rawValue) not listed")
            }
        }
    }
}

import Foundation
import InMemoryLogging
import JobdConfig
import JobdPolicy
import JobdDaemon
import Logging
import Testing

/// Issue 36: users' jobs live in the spool, which a purge keeps; a jobd from before the spool kept
/// them in the state directory, and they move at start, once.
@Suite struct SpoolMoveTests {
    func scratch() throws -> String {
        let base = NSTemporaryDirectory() + "jobd-spool-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base + "/state/users/alice", withIntermediateDirectories: true)
        try "[Job]\nOnCalendar=daily\nExecStart=/bin/true\n".write(toFile: base + "/state/users/alice/a.job", atomically: true, encoding: .utf8)
        return base
    }

    @Test func usersJobsMoveFromTheStateDirectoryToTheSpool() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let log = InMemoryLogHandler()
        UserJobStore.move(from: base + "/state/users", to: base + "/spool", logger: Logger(label: "t") { _ in log })
        #expect(UserJobStore(directory: base + "/spool").jobs(of: "alice") == ["a"])
        #expect(!FileManager.default.fileExists(atPath: base + "/state/users"))
        #expect(log.entries.contains { $0.message.description.contains("moved") })
        // Once: nothing left to move at the next start, and nothing said.
        UserJobStore.move(from: base + "/state/users", to: base + "/spool", logger: Logger(label: "t") { _ in log })
        #expect(log.entries.count == 1)
    }

    @Test func aSpoolThatIsThereAlreadyIsNotOverwritten() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/spool/bob", withIntermediateDirectories: true)
        try "[Job]\nExecStart=/bin/true\n".write(toFile: base + "/spool/bob/b.job", atomically: true, encoding: .utf8)
        let log = InMemoryLogHandler()
        UserJobStore.move(from: base + "/state/users", to: base + "/spool", logger: Logger(label: "t") { _ in log })
        #expect(UserJobStore(directory: base + "/spool").jobs(of: "bob") == ["b"])
        #expect(FileManager.default.fileExists(atPath: base + "/state/users/alice/a.job"), "left where it was")
        #expect(log.entries.contains { $0.level == .error && $0.message.description.contains("by hand") })
    }
}

import Foundation
import JobdLocks
import Testing

@testable import JobdCalendar

/// Zones are read again when their file changes (issue 20: a tzdata upgrade was not picked up at a
/// reload, zones being cached for the life of the process). Keyed by the file's identity, checked
/// once per configuration load (`revalidateCache()`, which JobDirectory calls).
@Suite(.serialized) struct ZoneFileChangeTests {
    let directory = NSTemporaryDirectory() + "jobd-zones-\(UUID().uuidString)"

    func install(_ zone: String, as path: String) throws {
        let temporary = path + ".new"
        try FileManager.default.copyItem(atPath: TimeZoneRules.zoneInfoDirectory + "/" + zone, toPath: temporary)
        #expect(rename(temporary, path) == 0)  // as dpkg replaces a file
    }

    @Test func aReplacedZoneFileIsReadAgainAfterRevalidation() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/Local"
        let summer = RealtimeInstant(seconds: 1_783_000_000)  // 2026-07-02
        try install("Europe/Berlin", as: path)
        #expect(try TimeZoneRules.load(named: path).offset(at: summer) == 7200)

        try install("Asia/Kolkata", as: path)
        // (Without this, the zone stays as cached; not asserted, as other tests may revalidate.)
        TimeZoneRules.revalidateCache()
        #expect(try TimeZoneRules.load(named: path).offset(at: summer) == 19800, "read again: another file")

        // Unchanged files are kept, not read again.
        let kept = try TimeZoneRules.load(named: path)
        TimeZoneRules.revalidateCache()
        #expect(try TimeZoneRules.load(named: path).data === kept.data)
    }

    /// A FIFO named as a zone (an absolute path, or planted as `/etc/localtime`) is refused at
    /// once: opening it used to block until a writer came, hanging the load that read it.
    @Test func aFIFONamedAsAZoneIsRefusedWithoutBlocking() async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/Fifo"
        #expect(mkfifo(path, 0o600) == 0)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
            let answered = LockedBox(false)
            Thread.detachNewThread {
                let refused: Bool
                do { _ = try TimeZoneRules.load(named: path); refused = false } catch { refused = true }
                if answered.withLock({ (done: inout Bool) -> Bool in defer { done = true }; return !done }) { continuation.resume(returning: refused) }
            }
            // If the load blocks in open(), say so after 10 s and let it go by opening the writer side.
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 10)
                if answered.withLock({ (done: inout Bool) -> Bool in defer { done = true }; return !done }) {
                    continuation.resume(returning: nil)
                    let writer = open(path, O_WRONLY)
                    if writer >= 0 { close(writer) }
                }
            }
        }
        #expect(outcome != nil, "the load blocked opening the FIFO")
        #expect(outcome == true, "a FIFO is not a zone file")
    }
}

import JobdLogging
import Testing

@Suite struct LogTargetTests {
    static let stderrIdentity: (device: UInt64, inode: UInt64) = (device: 24, inode: 4242)

    static func choose(_ environment: [String: String], reachable: Bool) -> LogTarget {
        JobdLoggingSystem.chooseTarget(environment: environment, stderrIdentity: stderrIdentity, journalReachable: { reachable })
    }

    @Test func overrideWins() {
        #expect(Self.choose(["JOBD_LOG_TARGET": "stderr", "JOURNAL_STREAM": "24:4242"], reachable: true).kind == .stderr)
        #expect(Self.choose(["JOBD_LOG_TARGET": "journal"], reachable: false).kind == .journal)
    }

    @Test func journalStreamNamingStderrMeansJournal() {
        let target = Self.choose(["JOURNAL_STREAM": "24:4242"], reachable: false)
        #expect(target.kind == .journal)
        #expect(target.reason.contains("JOURNAL_STREAM"))
    }

    @Test func journalStreamOfAnotherFileIsIgnored() {
        #expect(Self.choose(["JOURNAL_STREAM": "24:1"], reachable: false).kind == .stderr)
        #expect(Self.choose(["JOURNAL_STREAM": "garbage"], reachable: false).kind == .stderr)
    }

    @Test func reachableJournaldMeansJournal() {
        #expect(Self.choose([:], reachable: true).kind == .journal)
        #expect(Self.choose(["JOBD_LOG_TARGET": "auto"], reachable: false).kind == .stderr)
    }

    @Test func anUnknownOverrideIsReportedAndIgnored() {
        let target = Self.choose(["JOBD_LOG_TARGET": "syslog"], reachable: false)
        #expect(target.kind == .stderr)
        #expect(target.reason.contains("ignored JOBD_LOG_TARGET=syslog"))
    }
}

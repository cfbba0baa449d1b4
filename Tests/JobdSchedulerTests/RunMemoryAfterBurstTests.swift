import JobdConfig
import JobdScheduler
import Testing

/// Issue 39, item 4: what a job keeps of a run, it keeps in its own history's bytes, so that a
/// burst of runs leaves no small allocation behind among the pages its runs freed (those pages then
/// stay resident after the burst). What is kept must read back exactly as it was written.
struct RunMemoryAfterBurstTests {
    @Test(arguments: [
        "0123456789abcdef0123456789abcdef", "00000000000000000000000000000000", "ffffffffffffffffffffffffffffffff",
        "000000000000000a000000000000000b",
    ])
    func jobdsOwnInvocationIDsAreKeptAsTheirBitsAndReadBackExactly(_ id: String) {
        let stored = StoredInvocationID(id)
        guard case .bits = stored else {
            Issue.record("\(id) kept as text")
            return
        }
        #expect(stored.text == id)
        #expect(Self.outcome(id).invocationID == id)
    }

    /// Anything that is not 32 lowercase hex digits reads back as it was written: an earlier
    /// jobd's or a test's IDs, upper case (systemd writes lower case only), a short one.
    @Test(arguments: ["0123ABCD89abcdef0123456789abcdef", "0123abcd", "", "a1", "+123456789abcdef0123456789abcdef",
                      "0123456789abcdef0123456789abcdef0"])
    func anyOtherIDIsKeptAsItsText(_ id: String) {
        #expect(StoredInvocationID(id) == .text(id))
        #expect(Self.outcome(id).invocationID == id)
    }

    @Test func randomInvocationIDsAreSystemdsShapeAndKeptAsBits() {
        let ids = (0..<200).map { _ in RunRequest.randomInvocationID() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.utf8.count == 32 && id == id.lowercased())
            guard case .bits = StoredInvocationID(id) else {
                Issue.record("\(id) kept as text")
                continue
            }
        }
    }

    /// Counting by result as the dictionary did: each result's count, only the counted ones listed,
    /// in RunResult's order; every result has a slot.
    @Test func runsByResultCountsEachResultAndListsOnlyTheCountedOnes() {
        #expect(RunResult.allCases.count <= RunResultCounts.capacity)
        var counts = RunResultCounts()
        #expect(counts.isEmpty && Array(counts).isEmpty)
        for result in RunResult.allCases { counts[result] += 1 }
        counts[.exitCode] += 2
        #expect(!counts.isEmpty)
        #expect(counts.map(\.key) == RunResult.allCases)
        #expect(counts[.exitCode] == 3 && counts[.abandoned] == 1)
        var other = RunResultCounts()
        other[.success] = 1
        #expect(other.map(\.key) == [.success] && other != counts)
        other = counts
        #expect(other == counts)
    }

    private static func outcome(_ id: String) -> RunOutcome {
        RunOutcome(runID: 1, invocationID: id, job: "backup", termination: .exited(0), result: .success, duration: TimeSpan(microseconds: 5))
    }
}

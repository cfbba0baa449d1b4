import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTimers
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

/// A job's history is kept for every job, and a burst of runs makes every one of them resident:
/// its size is jobd's RSS after a burst, per job (issue 39).
struct CompactHistoryTests {
    /// 472 bytes before its optional instants were packed, its pending handover pace moved out of
    /// line and its count slots cut to the results there are.
    @Test func aJobsHistoryFitsInThreeHundredAndTwentyBytes() {
        #expect(MemoryLayout<JobHistory>.stride <= 320)
    }

    /// Every instant reads back as it was written, and "none" as none, at the ends of both clocks.
    @Test(arguments: [UInt64(0), 1, 1_000_000_007, UInt64.max - 1])
    func packedInstantsReadBackExactly(_ value: UInt64) {
        var history = JobHistory()
        #expect(history.lastTrigger == nil && history.lastTriggerRealtime == nil && history.scheduledSince == nil)
        history.lastTrigger = MonotonicInstant(nanoseconds: value)
        let microseconds = Int64(truncatingIfNeeded: value)
        history.lastTriggerRealtime = RealtimeInstant(microseconds: microseconds)
        history.lastSuccessRealtime = RealtimeInstant(microseconds: -microseconds)
        #expect(history.lastTrigger == MonotonicInstant(nanoseconds: value))
        #expect(history.lastTriggerRealtime == RealtimeInstant(microseconds: microseconds))
        #expect(history.lastSuccessRealtime == RealtimeInstant(microseconds: -microseconds))
        #expect(history.lastStart == nil && history.lastFinishRealtime == nil)
        history.lastTrigger = nil
        #expect(history.lastTrigger == nil && history != JobHistory())
    }
}

/// The histories are kept side by side rather than in a dictionary's slots; to every caller they
/// are still a table by job name.
struct JobHistoriesTests {
    @Test func historiesReadAndWriteAsATableByJobName() {
        var histories = JobHistories()
        var reference: [String: JobHistory] = [:]
        for index in 0..<50 {
            var history = JobHistory()
            history.lastTrigger = MonotonicInstant(nanoseconds: UInt64(index))
            histories["job-\(index)"] = history
            reference["job-\(index)"] = history
        }
        // Removing from the middle and the end, replacing, and removing what is not there.
        for name in ["job-7", "job-49", "job-0", "nobody"] {
            histories[name] = nil
            reference[name] = nil
        }
        histories["job-3"]?.lastFinish = MonotonicInstant(nanoseconds: 99)
        reference["job-3"]?.lastFinish = MonotonicInstant(nanoseconds: 99)
        histories["job-8", default: JobHistory()].skippedByReason[ElapseSkipReason("overlap"), default: 0] += 1
        reference["job-8", default: JobHistory()].skippedByReason[ElapseSkipReason("overlap"), default: 0] += 1
        #expect(histories.count == reference.count && histories.values.count == reference.count)
        for (name, history) in reference { #expect(histories[name] == history, "\(name)") }
        #expect(Dictionary(uniqueKeysWithValues: histories.map { ($0.key, $0.value) }) == reference)
        #expect(histories["job-7"] == nil && histories["job-49"] == nil)

        // A saved history is taken only by a job that has none; equality ignores the order.
        var saved = JobHistory()
        saved.lastFinish = MonotonicInstant(nanoseconds: 1)
        var restored = histories
        restored.addMissing(["job-3": saved, "job-7": saved])
        #expect(restored["job-3"] == histories["job-3"] && restored["job-7"] == saved)
        var sameInAnotherOrder = JobHistories()
        for (name, history) in reference.sorted(by: { $0.key > $1.key }) { sameInAnotherOrder[name] = history }
        #expect(sameInAnotherOrder == histories && restored != histories)
    }
}

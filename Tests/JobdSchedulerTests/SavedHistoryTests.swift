import JobdCalendar
import JobdConfig
import JobdScheduler
import Testing

/// What of a job's history the state directory keeps across restarts, as text.
@Suite struct SavedHistoryTests {
    static func failed() -> JobHistory {
        var history = JobHistory()
        history.lastStartRealtime = RealtimeInstant(microseconds: 1_790_000_000_000_000)
        history.lastStartCause = "retry"
        history.lastFinishRealtime = RealtimeInstant(microseconds: 1_790_000_002_500_000)
        history.lastSuccessRealtime = RealtimeInstant(microseconds: 1_789_000_000_000_000)
        var run = JobHistory.LastRun(
            result: .exitCode, exitCode: "exited", exitStatus: "3", outcome: "exited with status 3",
            duration: TimeSpan(microseconds: 2_500_000), invocationID: "0123456789abcdef0123456789abcdef")
        run.shellStatus = 3
        history.lastRun = run
        return history
    }

    @Test func aSavedHistoryReadsBackAsItWas() throws {
        let history = Self.failed()
        let text = try #require(history.savedText)
        #expect(text == """
            start=1790000000000000
            cause=retry
            finish=1790000002500000
            success=1789000000000000
            result=exit-code
            exit-code=exited
            exit-status=3
            shell-status=3
            outcome=exited with status 3
            duration-usec=2500000
            run-id=0123456789abcdef0123456789abcdef

            """)
        #expect(JobHistory(savedText: Substring(text)) == history)
    }

    /// Only what survives a restart is kept: the monotonic instants, the last trigger and the run
    /// counters start again with jobd.
    @Test func monotonicInstantsAndCountersAreNotKept() throws {
        var history = Self.failed()
        history.runsByResult[.exitCode] = 4
        history.lastTriggerRealtime = RealtimeInstant(microseconds: 1)
        let text = try #require(history.savedText)
        let read = try #require(JobHistory(savedText: Substring(text)))
        #expect(read.runsByResult.isEmpty && read.lastTriggerRealtime == nil && read.lastStart == nil)
        #expect(read.lastRun == history.lastRun)
    }

    /// (text, what reads back: the result, the start's microseconds), `nil` for no history.
    static let texts: [(String, (RunResult?, Int64?)?)] = [
        ("", nil),
        ("garbage\n", nil),
        // A key a newer jobd writes is skipped; a result jobd does not know leaves the run out.
        ("start=5\nfuture-key=1\n", (nil, 5)),
        ("result=exploded\nstart=7\n", (nil, 7)),
        ("result=success\n", (.success, nil)),
        // Malformed times are left out, never guessed.
        ("start=-1\nresult=signal\n", (.signal, nil)),
        ("start=soon\n", nil),
    ]

    @Test(arguments: texts.indices) func malformedTextsReadAsLittleAsTheySay(index: Int) {
        let (text, expected) = Self.texts[index]
        let read = JobHistory(savedText: Substring(text))
        #expect(read.map { ($0.lastRun?.result, $0.lastStartRealtime?.microseconds) }.map { "\($0)" } == expected.map { "\($0)" }, "\(text)")
    }

    @Test func aJobThatNeverRanHasNothingToKeep() {
        var history = JobHistory()
        history.lastTriggerRealtime = RealtimeInstant(microseconds: 1)
        #expect(history.savedText == nil)
    }
}

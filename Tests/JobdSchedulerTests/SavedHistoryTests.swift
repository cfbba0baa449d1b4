import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTimers
import Testing

/// What of a job's history the state directory keeps across restarts, as text.
@Suite struct SavedHistoryTests {
    static func failed() -> JobHistory {
        var history = JobHistory()
        history.lastStartRealtime = RealtimeInstant(microseconds: 1_790_000_000_000_000)
        history.lastStartCause = "retry"
        history.lastFinishRealtime = RealtimeInstant(microseconds: 1_790_000_002_500_000)
        history.lastSuccessRealtime = RealtimeInstant(microseconds: 1_789_000_000_000_000)
        history.lastRun = RunOutcome(
            runID: 0, invocationID: "0123456789abcdef0123456789abcdef", job: "backup", termination: .exited(3), result: .exitCode,
            duration: TimeSpan(microseconds: 2_500_000))
        return history
    }

    /// What a state writer is handed renders, when written, as the history itself would: plain, or
    /// with the pace a handover keeps.
    @Test func aSavedHistoryRendersAsItsHistory() {
        var history = Self.failed()
        history.lastStart = MonotonicInstant(nanoseconds: 5_000_000_000)
        #expect(JobHistory.Saved(history).text == history.savedText)
        #expect(JobHistory.Saved(history, paceBoot: "boot-a").text == history.savedText(pace: "boot-a"))
        #expect(JobHistory.Saved(history, paceBoot: "boot-a").text?.contains("pace-start=5000000000") == true)
        #expect(JobHistory.Saved(JobHistory()).text == nil, "an empty history is removed")
    }

    /// Issue 36: a handover keeps the monotonic instants an every-second job counts from, for the
    /// next jobd of the same boot only, and once: a plain restart counts from its own start.
    @Test func aHandoverKeepsTheJobsPaceForTheNextJobdOfTheSameBootOnly() throws {
        var history = Self.failed()
        history.lastStart = MonotonicInstant(nanoseconds: 5_000_000_000)
        history.lastTrigger = MonotonicInstant(nanoseconds: 5_000_000_000)
        history.lastFinish = MonotonicInstant(nanoseconds: 5_200_000_000)
        #expect(!(history.savedText ?? "").contains("pace"), "a plain save keeps no pace")
        let text = try #require(history.savedText(pace: "boot-a"))
        let read = try #require(JobHistory(savedText: Substring(text), job: "backup"))
        #expect(read.lastStart == nil, "not taken unless restored")
        let restored = read.restoringPace(inBoot: "boot-a")
        #expect(restored.lastStart == history.lastStart && restored.lastTrigger == history.lastTrigger)
        #expect(restored.lastFinish == history.lastFinish && restored.pace == nil)
        #expect(read.restoringPace(inBoot: "boot-b").lastStart == nil, "another boot's monotonic clock means nothing")
        // The next jobd started at 5.6 s: the every-second job is due at 6 s, not at 6.6 s.
        let next = NextElapse.next(triggers: [.unitActive(.seconds(1))], daemonStart: MonotonicInstant(nanoseconds: 5_600_000_000),
                                   history: restored)
        #expect(next == MonotonicInstant(nanoseconds: 6_000_000_000))
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
        #expect(JobHistory(savedText: Substring(text), job: "backup") == history)
    }

    /// Only what survives a restart is kept: the monotonic instants, the last trigger and the run
    /// counters start again with jobd.
    @Test func monotonicInstantsAndCountersAreNotKept() throws {
        var history = Self.failed()
        history.runsByResult[.exitCode] = 4
        history.lastTriggerRealtime = RealtimeInstant(microseconds: 1)
        let text = try #require(history.savedText)
        let read = try #require(JobHistory(savedText: Substring(text), job: "backup"))
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
        ("result=success\nexit-code=exited\nexit-status=0\n", (.success, nil)),
        // Malformed times are left out, never guessed; so is a run whose end says no termination.
        ("start=-1\nresult=signal\nexit-code=killed\nexit-status=TERM\n", (.signal, nil)),
        ("start=soon\n", nil),
        ("result=success\n", nil),
        ("start=8\nresult=signal\nexit-code=killed\nexit-status=NOSUCHSIG\n", (nil, 8)),
        ("result=exit-code\nexit-code=exited\nexit-status=three\n", nil),
        ("result=start-failed\nexit-code=failed-to-start\nexit-status=203\noutcome=gone\n", nil),
    ]

    /// The last runs a previous jobd kept, one of each way a run ends, as it wrote them: each
    /// reads back as that run and is written again byte for byte (a downgrade reads it too).
    static let writtenBefore: [(String, RunTermination, RunResult)] = [
        ("""
         result=signal
         exit-code=killed
         exit-status=TERM
         shell-status=143
         outcome=killed by SIGTERM
         duration-usec=5
         run-id=a1

         """, .killed(signal: 15), .signal),
        ("""
         result=core-dump
         exit-code=dumped
         exit-status=SEGV
         shell-status=139
         outcome=killed by SIGSEGV (core dumped)
         duration-usec=6
         run-id=a2

         """, .dumped(signal: 11), .coreDump),
        ("""
         result=signal
         exit-code=killed
         exit-status=40
         shell-status=168
         outcome=killed by SIG40
         duration-usec=7
         run-id=a3

         """, .killed(signal: 40), .signal),
        ("""
         result=start-failed
         exit-code=failed-to-start
         exit-status=203
         shell-status=203
         outcome=failed to start: no such program: /usr/local/bin/nope
         duration-usec=0
         run-id=a4

         """, .failedToStart("no such program: /usr/local/bin/nope"), .startFailed),
        ("""
         start=1790000000000000
         cause=timer
         finish=1790000000000100
         success=1790000000000100
         result=success
         exit-code=exited
         exit-status=0
         shell-status=0
         outcome=exited with status 0
         duration-usec=100
         run-id=a5

         """, .exited(0), .success),
    ]

    @Test(arguments: writtenBefore.indices) func aLastRunAPreviousJobdWroteReadsBackAsItWas(index: Int) throws {
        let (text, termination, result) = Self.writtenBefore[index]
        let history = try #require(JobHistory(savedText: Substring(text), job: "backup"))
        let run = try #require(history.lastRun)
        #expect(run.termination == termination && run.result == result && run.job == "backup" && run.runID == 0)
        #expect(run.invocationID == "a\(index + 1)")
        #expect(history.savedText == text)
    }

    @Test(arguments: texts.indices) func malformedTextsReadAsLittleAsTheySay(index: Int) {
        let (text, expected) = Self.texts[index]
        let read = JobHistory(savedText: Substring(text), job: "backup")
        #expect(read.map { ($0.lastRun?.result, $0.lastStartRealtime?.microseconds) }.map { "\($0)" } == expected.map { "\($0)" }, "\(text)")
    }

    @Test func aJobThatNeverRanHasNothingToKeep() {
        var history = JobHistory()
        history.lastTriggerRealtime = RealtimeInstant(microseconds: 1)
        #expect(history.savedText == nil)
    }
}

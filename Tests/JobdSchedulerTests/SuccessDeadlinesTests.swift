import JobdCalendar
import JobdConfig
import JobdScheduler
import Testing

/// `ExpectSuccessWithinSec=`'s switch as a pure state machine on a wall clock in microseconds
/// (issue 40 item 3): the alarm at exactly the last success plus the span, not before, once, and
/// cleared by the next success, from which the switch counts again.
@Suite struct SuccessDeadlinesTests {
    typealias Watches = SuccessDeadlines
    static let t0 = RealtimeInstant(microseconds: 1_767_225_600_000_000)
    static func at(_ seconds: Int64) -> RealtimeInstant { RealtimeInstant(microseconds: t0.microseconds + seconds * 1_000_000) }
    static let hour = TimeSpan.seconds(3600)

    @Test func theAlarmIsRaisedAtTheLastSuccessPlusTheSpanOnceAndNotBefore() {
        var watches = Watches()
        watches.configure(["backup": .init(span: Self.hour, lastSuccess: Self.at(100), entered: Self.at(0))], now: Self.at(0))
        #expect(watches.nextDeadline == Self.at(3700), "counted from the last success, not from the load")
        #expect(watches.due(now: Self.at(3699)).isEmpty)
        #expect(watches.due(now: RealtimeInstant(microseconds: Self.at(3700).microseconds - 1)).isEmpty, "not a microsecond early")
        #expect(watches.due(now: Self.at(3700)) == [.alarm(job: "backup", deadline: Self.at(3700), lastSuccess: Self.at(100))])
        #expect(watches.isOverdue("backup"))
        #expect(watches.due(now: Self.at(3701)).isEmpty && watches.due(now: Self.at(90_000)).isEmpty, "once, not again while overdue")
        #expect(watches.nextDeadline == nil, "nothing to wake up for while the alarm stands")
    }

    @Test func aSuccessClearsTheAlarmAndTheSwitchCountsFromIt() {
        var watches = Watches()
        watches.configure(["a": .init(span: Self.hour, lastSuccess: nil, entered: Self.at(0))], now: Self.at(0))
        #expect(watches.due(now: Self.at(3600)).count == 1, "never succeeded: counted from when it entered the configuration")
        #expect(watches.succeeded("a", at: Self.at(5000)) == [.cleared(job: "a", deadline: Self.at(3600), success: Self.at(5000))])
        #expect(!watches.isOverdue("a"))
        #expect(watches.nextDeadline == Self.at(8600))
        #expect(watches.succeeded("a", at: Self.at(6000)).isEmpty, "a success while not overdue clears nothing")
        #expect(watches.due(now: Self.at(9599)).isEmpty)
        #expect(watches.due(now: Self.at(9600)) == [.alarm(job: "a", deadline: Self.at(9600), lastSuccess: Self.at(6000))], "re-armed")
    }

    @Test func aReloadKeepsTheSwitchAndDropsRemovedOnes() {
        var watches = Watches()
        watches.configure([
            "a": .init(span: Self.hour, lastSuccess: nil, entered: Self.at(0)),
            "b": .init(span: Self.hour, lastSuccess: nil, entered: Self.at(0)),
        ], now: Self.at(0))
        _ = watches.due(now: Self.at(3600))
        // A reload at 01:10 that changes nothing of a, and removes b's key.
        watches.configure(["a": .init(span: Self.hour, lastSuccess: nil, entered: Self.at(4200))], now: Self.at(4200))
        #expect(watches.isOverdue("a") && watches.due(now: Self.at(4200)).isEmpty, "still overdue, not raised again")
        #expect(watches.watches["b"] == nil && !watches.isOverdue("b"))
        // A longer span moves the deadline past now: no longer overdue, raised again at the new deadline.
        watches.configure(["a": .init(span: .seconds(7200), lastSuccess: nil, entered: Self.at(4300))], now: Self.at(4300))
        #expect(!watches.isOverdue("a") && watches.nextDeadline == Self.at(7200), "still counted from when a entered, not the reload")
        #expect(watches.due(now: Self.at(7200)).count == 1)
    }
}

import JobdConfig
import JobdScheduler
import JobdTimers
import Testing

/// The scheduling rules, on fixed instants.
@Suite struct NextElapseTests {
    let start = MonotonicInstant(nanoseconds: 100_000_000_000)

    func at(_ seconds: Int64) -> MonotonicInstant { start + .seconds(seconds) }

    @Test func startupFiresOnceAfterStart() {
        var history = JobHistory()
        #expect(NextElapse.next(triggers: [.startup(.seconds(5))], daemonStart: start, history: history) == at(5))
        history.lastTrigger = at(5)
        #expect(NextElapse.next(triggers: [.startup(.seconds(5))], daemonStart: start, history: history) == nil)
    }

    @Test func activeCountsFromTheLastStart() {
        var history = JobHistory()
        history.lastTrigger = at(10)
        history.lastStart = at(10)
        #expect(NextElapse.next(triggers: [.unitActive(.seconds(60))], daemonStart: start, history: history) == at(70))
    }

    @Test func aJobThatNeverRanCountsFromDaemonStart() {
        let history = JobHistory()
        #expect(NextElapse.next(triggers: [.unitActive(.seconds(60))], daemonStart: start, history: history) == at(60))
        #expect(NextElapse.next(triggers: [.unitInactive(.seconds(30))], daemonStart: start, history: history) == at(30))
    }

    @Test func aSkippedTriggerDoesNotFallDueAgainAtOnce() {
        var history = JobHistory()
        history.lastStart = at(0)
        history.lastTrigger = at(60)  // fell due at 60 but the run from 0 was still going
        #expect(NextElapse.next(triggers: [.unitActive(.seconds(60))], daemonStart: start, history: history) == at(120))
    }

    @Test func inactiveWaitsForTheRunToFinish() {
        var history = JobHistory()
        history.lastTrigger = at(10)
        history.lastStart = at(10)
        #expect(NextElapse.next(triggers: [.unitInactive(.seconds(30))], daemonStart: start, history: history, running: true) == nil)
        history.lastFinish = at(100)
        #expect(NextElapse.next(triggers: [.unitInactive(.seconds(30))], daemonStart: start, history: history) == at(130))
    }

    @Test func theEarliestTriggerWins() {
        var history = JobHistory()
        history.lastTrigger = at(1)
        history.lastStart = at(1)
        history.lastFinish = at(2)
        let triggers: [Trigger] = [.startup(.seconds(1)), .unitActive(.seconds(3600)), .unitInactive(.seconds(600))]
        #expect(NextElapse.next(triggers: triggers, daemonStart: start, history: history) == at(602))
    }

    @Test func infiniteSpanNeverOverflows() {
        let next = NextElapse.next(triggers: [.unitActive(.infinity)], daemonStart: start, history: JobHistory())
        #expect(next != nil && next! > at(1_000_000_000))
    }
}

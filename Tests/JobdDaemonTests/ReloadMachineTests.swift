import JobdMetrics
import JobdConfig
import JobdControl
@testable import JobdDaemon
import JobdScheduler
import JobdTimers
import Testing

/// The reload machine alone: hang-ups, reads and subscribers as values, with the time passed in.
@Suite struct ReloadMachineTests {
    let t0 = MonotonicInstant(nanoseconds: 1_000_000_000)

    @Test func aHangUpBeginsAReadAndOneDuringItOnlyAsksForAnother() {
        var machine = ReloadMachine(jobFiles: JobFileCache())
        #expect(machine.hangUp(now: t0) != nil, "the first hang-up begins a read")
        #expect(machine.hangUp(now: t0 + .seconds(1)) == nil, "one at a time")
        #expect(machine.hangUp(now: t0 + .seconds(2)) == nil)
        let again = machine.read(JobFileCache())
        #expect(again, "hang-ups during the read ask for one more")
        #expect(machine.hangUp(now: t0 + .seconds(3)) != nil)
        let onceMore = machine.read(JobFileCache())
        #expect(!onceMore, "and only one")
    }

    @Test func theReadInProgressSaysHowLongItHasBeenReading() {
        var machine = ReloadMachine(jobFiles: JobFileCache())
        #expect(machine.readingFor(now: t0) == nil)
        _ = machine.hangUp(now: t0)
        #expect(machine.readingFor(now: t0 + .seconds(7)) == .seconds(7))
        _ = machine.read(JobFileCache())
        #expect(machine.readingFor(now: t0 + .seconds(8)) == nil)
    }

    @Test func outcomesAreNumberedAndCounted() {
        var machine = ReloadMachine(jobFiles: JobFileCache())
        #expect(machine.subscribed(generation: 4) == ReloadReport(sequence: 0, accepted: true, generation: 4))
        let first = machine.finished(ReloadReport(sequence: 0, accepted: true, generation: 2), as: .applied).report
        let second = machine.finished(ReloadReport(sequence: 0, accepted: false, generation: 2), as: .rejected).report
        let third = machine.finished(ReloadReport(sequence: 0, accepted: false, generation: 3), as: .partial).report
        #expect([first, second, third].map(\.sequence) == [1, 2, 3])
        #expect(machine.last == third)
        #expect(machine.subscribed(generation: 9) == third, "a subscriber first hears the last outcome")
        #expect([machine.outcomes.applied, machine.outcomes.rejected, machine.outcomes.partial] == [1, 1, 1])
    }

    @Test func aReadIsReportedAsAppliedPartialOrRejected() {
        var machine = ReloadMachine(jobFiles: JobFileCache())
        let summary = Scheduler.ReloadSummary(generation: 5, added: ["new"], changed: ["edited"], removed: ["gone"], kept: ["a", "b"])
        let applied = machine.applied(summary, errors: [], finishedRealtimeUSec: 7).report
        #expect(applied == ReloadReport(sequence: 1, accepted: true, generation: 5, added: ["new"], changed: ["edited"],
                                        removed: ["gone"], kept: 2, finishedRealtimeUSec: 7))
        // A user's broken job (a dangling OnFailure=) breaks that job alone: root's reload is
        // applied, with the user's error in the report for the user to see (issue 37).
        let users = ConfigError(file: "/var/spool/jobd/alice/a.job", line: 2, message: "OnFailure=: no job is named 'gone'")
        let usersOnly = machine.applied(summary, errors: [users], owners: [.user(1000)], finishedRealtimeUSec: 8).report
        #expect(usersOnly.accepted && usersOnly.errors == [users.description] && usersOnly.sequence == 2)
        let error = ConfigError(file: "/etc/jobd/jobs.d/b.job", line: 3, message: "bad")
        let partial = machine.applied(summary, errors: [users, error], owners: [.user(1000), .root], finishedRealtimeUSec: 8).report
        #expect(!partial.accepted && partial.errors == [users.description, error.description] && partial.generation == 5 && partial.sequence == 3)
        let fatal = ConfigError(file: "/etc/jobd/jobs.d", line: nil, message: "cannot read")
        let rejected = machine.rejected(fatal, generation: 5, finishedRealtimeUSec: 9).report
        #expect(rejected == ReloadReport(sequence: 4, accepted: false, generation: 5, errors: [fatal.description], finishedRealtimeUSec: 9))
        #expect([machine.outcomes.applied, machine.outcomes.partial, machine.outcomes.rejected] == [2, 1, 1])
    }

    @Test func aSubscriberDuringAReadWaitsForTheNextOutcome() {
        var machine = ReloadMachine(jobFiles: JobFileCache())
        let before = ControlReply(), during = ControlReply()
        machine.subscribe(before)
        _ = machine.hangUp(now: t0)
        machine.subscribe(during)
        _ = machine.read(JobFileCache())
        let answered = machine.finished(ReloadReport(sequence: 0, accepted: true, generation: 2), as: .applied).watchers
        #expect(answered.map(ObjectIdentifier.init) == [ObjectIdentifier(before)])
        _ = machine.hangUp(now: t0 + .seconds(1))
        _ = machine.read(JobFileCache())
        let next = machine.finished(ReloadReport(sequence: 0, accepted: true, generation: 3), as: .applied).watchers
        #expect(next.map(ObjectIdentifier.init) == [ObjectIdentifier(during)])
    }

    @Test func atShutdownEverySubscriberIsHandedBackOnce() {
        var machine = ReloadMachine(jobFiles: JobFileCache())
        machine.subscribe(ControlReply())
        _ = machine.hangUp(now: t0)
        machine.subscribe(ControlReply())
        #expect(machine.shutdown().count == 2)
        #expect(machine.shutdown().isEmpty)
    }
}

import InMemoryLogging
import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTestKit
import JobdTimers
import Logging
import Testing

/// Calendar triggers on a fake wall clock: the monotonic clock and the wall clock are both the
/// test's, so a clock set is a line of code, not a change to the machine.
@Suite struct CalendarSchedulingTests {
    final class FakeClocks: @unchecked Sendable {
        let lock = Guarded((monotonic: UInt64(1_000_000_000_000), realtime: Int64(0)))
        init(realtime: String) {
            let seconds = try! BaseTime.parse(realtime, now: RealtimeInstant(seconds: 0), zone: .utc)
            lock.withLock { $0.realtime = seconds.microseconds }
        }
        var clocks: Scheduler.Clocks {
            Scheduler.Clocks(
                monotonic: { MonotonicInstant(nanoseconds: self.lock.withLock { $0.monotonic }) },
                realtime: { RealtimeInstant(microseconds: self.lock.withLock { $0.realtime }) })
        }
        var monotonic: MonotonicInstant { MonotonicInstant(nanoseconds: lock.withLock { $0.monotonic }) }
        /// Time passes: both clocks move.
        func advance(_ seconds: Int64) {
            lock.withLock {
                $0.monotonic += UInt64(seconds) * 1_000_000_000
                $0.realtime += seconds * 1_000_000
            }
        }
        /// The wall clock is set: only it moves.
        func setWallClock(by seconds: Int64) {
            lock.withLock { $0.realtime += seconds * 1_000_000 }
        }
    }

    final class MemoryStore: TriggerStore, @unchecked Sendable {
        let stamps = Guarded<[String: RealtimeInstant]>([:])
        func lastTrigger(of job: String) -> RealtimeInstant? { stamps.withLock { $0[job] } }
        func recordTrigger(of job: String, at instant: RealtimeInstant) { stamps.withLock { $0[job] = instant } }
    }

    func job(_ name: String, _ keys: String) throws -> JobDefinition {
        try JobFileReader.read(name: name, path: "/etc/jobd/jobs.d/\(name).job", text: "[Job]\nExecStart=/bin/true\n\(keys)\n").get()
    }

    let fired = Guarded<[DueJob]>([])

    func makeScheduler(_ fake: FakeClocks, store: (any TriggerStore)? = nil, firstBoot: Bool = false) -> (Scheduler, TimerQueue) {
        let queue = TimerQueue.manual()
        let handler = InMemoryLogHandler()
        let fired = self.fired
        let scheduler = Scheduler(
            queue: queue, daemonStart: fake.monotonic, logger: Logger(label: "test") { _ in handler },
            clocks: fake.clocks, zone: .utc, store: store, firstStartThisBoot: firstBoot) { due in
            fired.withLock { $0.append(due) }
        }
        return (scheduler, queue)
    }

    @Test func calendarTriggerIsArmedForItsNextElapse() throws {
        let fake = FakeClocks(realtime: "2026-11-22 10:20:00 UTC")
        let (scheduler, _) = makeScheduler(fake)
        scheduler.load([try job("hourly", "OnCalendar=hourly")])
        #expect(scheduler.generation.owners["hourly"]?.timer.deadline == fake.monotonic + .seconds(40 * 60))
    }

    /// jobd's first load of many jobs works their next elapses out on every core: each job is armed
    /// as a load of them one by one arms it, whatever its triggers, `Persistent=` and history.
    @Test func aLargeFirstLoadArmsEveryJobAsOneByOne() throws {
        let fake = FakeClocks(realtime: "2026-11-22 10:20:17 UTC")
        let store = MemoryStore()
        store.recordTrigger(of: "job-5", at: RealtimeInstant(microseconds: fake.clocks.realtime().microseconds - 7_200_000_000))
        let keys: [(Int) -> String] = [
            { "OnCalendar=*-*-* *:\($0):00" }, { "Cron=\($0) 4 * * *" }, { "OnUnitActiveSec=\($0)min" }, { "OnStartupSec=\($0)s" },
            { "OnUnitInactiveSec=\($0)min" }, { _ in "OnCalendar=hourly\nPersistent=yes" }, { "OnCalendar=Mon *-*-* 0\($0):30 Europe/Berlin" },
            { "Cron=*/\($0) * * * *\nOnUnitActiveSec=3h" },
        ]
        let definitions = try (0..<Scheduler.parallelArmingThreshold + 100).map { index in
            try job("job-\(index)", keys[index % keys.count](1 + index % 9))
        }
        let (atOnce, _) = makeScheduler(fake, store: store)
        atOnce.load(definitions)
        let (oneByOne, _) = makeScheduler(fake, store: store)
        oneByOne.armsInParallel = false
        oneByOne.load(definitions)
        #expect(atOnce.generation.owners.count == definitions.count)
        for definition in definitions {
            let deadline = atOnce.generation.owners[definition.name]?.timer.deadline
            #expect(deadline == oneByOne.generation.owners[definition.name]?.timer.deadline, "\(definition.name)")
        }
        #expect(atOnce.generation.owners["job-5"]?.timer.deadline == fake.monotonic, "Persistent=: missed while down, due now")
    }

    @Test func wallClockSetForwardAndBackReArmsCalendarButNotMonotonicTriggers() throws {
        let fake = FakeClocks(realtime: "2026-11-22 10:20:00 UTC")
        let (scheduler, _) = makeScheduler(fake)
        scheduler.load([try job("daily", "OnCalendar=*-*-* 12:00:00"), try job("interval", "OnUnitActiveSec=1h")])
        let interval = scheduler.generation.owners["interval"]!.timer.deadline
        #expect(scheduler.generation.owners["daily"]!.timer.deadline == fake.monotonic + .seconds(100 * 60))

        // Forward an hour: 12:00 is now 40 minutes away.
        fake.setWallClock(by: 3600)
        scheduler.wallClockWasSet()
        #expect(scheduler.generation.owners["daily"]!.timer.deadline == fake.monotonic + .seconds(40 * 60))
        #expect(scheduler.generation.owners["interval"]!.timer.deadline == interval, "monotonic triggers do not move")

        // Back three hours (to 08:20): 12:00 is 3h 40min away.
        fake.setWallClock(by: -3 * 3600)
        scheduler.wallClockWasSet()
        #expect(scheduler.generation.owners["daily"]!.timer.deadline == fake.monotonic + .seconds(220 * 60))
        #expect(scheduler.generation.owners["interval"]!.timer.deadline == interval)
    }

    @Test func afterATriggerTheNextElapseCountsFromIt() throws {
        let fake = FakeClocks(realtime: "2026-11-22 10:20:00 UTC")
        let (scheduler, queue) = makeScheduler(fake)
        scheduler.load([try job("quarter", "OnCalendar=*:0/15")])
        let owner = scheduler.generation.owners["quarter"]!
        #expect(owner.timer.deadline == fake.monotonic + .seconds(10 * 60))
        fake.advance(10 * 60)
        queue.fireDue(now: fake.monotonic)
        let fell = try #require(fired.withLock { $0.first })
        let slot = try BaseTime.parse("2026-11-22 10:30:00 UTC", now: RealtimeInstant(seconds: 0), zone: .utc)
        #expect(scheduler.jobDue(fell, now: fake.monotonic) == .due(elapse: slot), "the slot it serves (JOBD_ELAPSE_USEC)")
        scheduler.settle(active: [])
        #expect(owner.timer.deadline == fake.monotonic + .seconds(15 * 60))
    }

    @Test func persistentCatchUpRunsOnceAtStartForATriggerMissedWhileDown() throws {
        let fake = FakeClocks(realtime: "2026-11-22 10:20:00 UTC")
        let store = MemoryStore()
        // jobd last triggered the job at 08:00; it was down at 09:00 and 10:00.
        store.recordTrigger(of: "hourly", at: try BaseTime.parse("2026-11-22 08:00:00 UTC", now: .init(seconds: 0), zone: .utc))
        let (scheduler, _) = makeScheduler(fake, store: store)
        scheduler.load([try job("hourly", "OnCalendar=hourly\nPersistent=yes"), try job("forgetful", "OnCalendar=hourly")])
        #expect(scheduler.generation.owners["hourly"]!.timer.deadline == fake.monotonic, "missed while down: due now")
        #expect(scheduler.generation.owners["forgetful"]!.timer.deadline == fake.monotonic + .seconds(40 * 60))
    }

    @Test func rebootRunsOnceAtTheFirstStartInABoot() throws {
        let fake = FakeClocks(realtime: "2026-11-22 10:20:00 UTC")
        let (first, _) = makeScheduler(fake, firstBoot: true)
        first.load([try job("boot", "Cron=@reboot")])
        #expect(first.generation.owners["boot"]!.timer.deadline == fake.monotonic)
        let (again, _) = makeScheduler(fake, firstBoot: false)
        again.load([try job("boot", "Cron=@reboot")])
        #expect(again.generation.owners["boot"]!.timer.deadline == nil, "not again in the same boot")
    }

    @Test func randomizedDelayStaysWithinItsBoundAndAccuracyRoundsUp() throws {
        let fake = FakeClocks(realtime: "2026-11-22 10:20:00 UTC")
        let (scheduler, _) = makeScheduler(fake)
        var delays: Set<UInt64> = []
        for round in 0..<20 {
            scheduler.load([try job("j", "OnCalendar=hourly\nRandomizedDelaySec=10min\nDescription=round \(round)")])
            scheduler.load([try job("j", "OnCalendar=hourly\nRandomizedDelaySec=10min")])
            let deadline = scheduler.generation.owners["j"]!.timer.deadline!
            let delay = deadline.nanoseconds - (fake.monotonic + .seconds(40 * 60)).nanoseconds
            #expect(delay <= 600_000_000_000)
            delays.insert(delay)
        }
        #expect(delays.count > 1, "drawn anew each time")
        scheduler.load([try job("coarse", "OnUnitActiveSec=10s\nAccuracySec=1min")])
        let coarse = scheduler.generation.owners["coarse"]!.timer.deadline!.nanoseconds
        #expect(coarse % 60_000_000_000 == 0 && coarse >= (fake.monotonic + .seconds(10)).nanoseconds)
    }
}

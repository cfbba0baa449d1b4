import InMemoryLogging
import JobdConfig
import JobdScheduler
import JobdTestKit
import JobdTimers
import Logging
import Testing

/// `Overlap=` on the trigger path: what a fall-due does while a run is in flight, on a manual
/// queue and fixed instants.
@Suite struct OverlapPolicyTests {
    let start = MonotonicInstant(nanoseconds: 50_000_000_000)
    let queue = TimerQueue.manual()
    let scheduler: Scheduler
    let due = Guarded<[DueJob]>([])

    init() {
        let due = self.due
        scheduler = Scheduler(queue: queue, daemonStart: start, logger: Logger(label: "test") { _ in InMemoryLogHandler() }) { job in
            due.withLock { $0.append(job) }
        }
    }

    func job(_ overlap: OverlapPolicy, name: String = "job") -> JobDefinition {
        var definition = JobDefinition(
            name: name, path: "/etc/jobd/jobs.d/\(name).job",
            triggers: [.unitActive(.seconds(60))], command: try! ExecCommand.parse("/bin/true"))
        definition.overlap = overlap
        return definition
    }

    /// Fires the job's timer at `at`, as the timing thread would, and lets the scheduler decide.
    func fallDue(at: MonotonicInstant) throws -> Scheduler.DueDecision {
        queue.fireDue(now: at)
        let fired = try #require(due.withLock { $0.popLast() }, "the job's timer fired at \(at)")
        return scheduler.jobDue(fired, now: at)
    }

    @Test func skipSkipsWhileARunIsInFlight() throws {
        let definition = job(.skip)
        scheduler.load([definition], now: start)
        #expect(try fallDue(at: start + .seconds(60)) == .run(definition))
        #expect(try fallDue(at: start + .seconds(120)) == .skip(reason: "overlap"))
        #expect(scheduler.runFinished(job: "job", outcome: "ok", now: start + .seconds(130)) == nil)
        #expect(scheduler.histories["job"]?.running == 0)
    }

    @Test func queueKeepsOneRunWaitingAndStartsItWhenTheRunEnds() throws {
        let definition = job(.queue)
        scheduler.load([definition], now: start)
        #expect(try fallDue(at: start + .seconds(60)) == .run(definition))
        #expect(try fallDue(at: start + .seconds(120)) == .wait(stopRunning: false))
        #expect(try fallDue(at: start + .seconds(180)) == .skip(reason: "already-queued"))
        let finished = start + .seconds(200)
        #expect(scheduler.runFinished(job: "job", outcome: "ok", now: finished) == definition)
        let history = try #require(scheduler.histories["job"])
        #expect(history.running == 1 && !history.queued)
        #expect(history.lastStart == finished, "the waiting run's start counts for OnUnitActiveSec=")
        #expect(scheduler.runFinished(job: "job", outcome: "ok", now: finished + .seconds(1)) == nil)
    }

    @Test func replaceAsksToStopTheRunInFlight() throws {
        let definition = job(.replace)
        scheduler.load([definition], now: start)
        #expect(try fallDue(at: start + .seconds(60)) == .run(definition))
        #expect(try fallDue(at: start + .seconds(120)) == .wait(stopRunning: true))
        #expect(scheduler.runFinished(job: "job", outcome: "killed", now: start + .seconds(121)) == definition)
    }

    @Test func parallelStartsBesideTheRunInFlight() throws {
        let definition = job(.parallel)
        scheduler.load([definition], now: start)
        #expect(try fallDue(at: start + .seconds(60)) == .run(definition))
        #expect(try fallDue(at: start + .seconds(120)) == .run(definition))
        #expect(scheduler.histories["job"]?.running == 2)
        #expect(scheduler.runFinished(job: "job", outcome: "ok", now: start + .seconds(130)) == nil)
        #expect(scheduler.histories["job"]?.running == 1)
    }

    @Test func aRunFromThePreviousGenerationCountsAndTheWaitingRunTakesTheNewDefinition() throws {
        scheduler.load([job(.queue)], now: start)
        #expect(try fallDue(at: start + .seconds(60)) == .run(job(.queue)))
        var changed = job(.queue)
        changed.description = "changed by a reload"
        scheduler.load([changed], now: start + .seconds(70))
        #expect(try fallDue(at: start + .seconds(130)) == .wait(stopRunning: false), "the old generation's run is in flight")
        #expect(scheduler.runFinished(job: "job", outcome: "ok", now: start + .seconds(140)) == changed)
    }

    @Test func aWaitingRunOfARemovedJobIsDropped() throws {
        scheduler.load([job(.queue)], now: start)
        _ = try fallDue(at: start + .seconds(60))
        #expect(try fallDue(at: start + .seconds(120)) == .wait(stopRunning: false))
        scheduler.load([], now: start + .seconds(125))
        #expect(scheduler.runFinished(job: "job", outcome: "ok", now: start + .seconds(130)) == nil)
        #expect(scheduler.histories["job"] == nil)
    }
}

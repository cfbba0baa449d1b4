import InMemoryLogging
@testable import JobdDaemon
import JobdConfig
import JobdDefinition
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
import Testing

/// Issue 37: a user's `run.skip`, `run.wait` and `run.retry` entries spend the journal budget her
/// output spends, so that her flood of `jobctl --user run` cannot make journald suppress root's
/// entries; what is over it is counted and said once, and root's entries are never counted.
@Suite struct UserEntryBudgetTests {
    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000)

    static func job(_ name: String, owner: String?, uid: UInt32?) -> JobDefinition {
        var definition = JobDefinition(name: name, path: "/\(name).job", triggers: [.unitActive(.seconds(60))],
                                       command: try! ExecCommand.parse("/bin/true"))
        (definition.owningUser, definition.owningUID) = (owner, uid)
        return definition
    }

    /// An admission with alice's job `job` (uid 1001) and root's `backup`, her budget of `burst`
    /// entries in 30 s, and a logger that keeps what it is given.
    static func alicesAndRoots(_ job: String, burst: Int) -> (RunAdmission, OutputBudget, InMemoryLogHandler, Logger) {
        var admission = RunAdmission { "id" }
        let jobs = [Self.job(job, owner: "alice", uid: 1001), Self.job("backup", owner: nil, uid: nil)]
        _ = admission.configure(Generation(jobs: jobs, settings: DaemonSettings()), now: Self.t0)
        let log = InMemoryLogHandler()
        return (admission, OutputBudget(.init(burst: burst, interval: .seconds(30))), log, Logger(label: "entries") { _ in log })
    }

    func events(_ log: InMemoryLogHandler, _ event: JobdEvent, job: String? = nil) -> [InMemoryLogHandler.Entry] {
        log.entries.filter { entry in
            entry.metadata[JobdField.event] == .string(event.rawValue) && job.map { entry.metadata[JobdField.job] == .string($0) } ?? true
        }
    }

    @Test func aUsersFloodOfRunRequestsLogsAtMostHerBudgetAndOneDroppedNote() throws {
        let (configured, budget, log, logger) = Self.alicesAndRoots("alice:flood", burst: 50)
        var admission = configured
        func ask(_ job: String, times: Int, now: MonotonicInstant) {
            for _ in 0 ..< times {
                for action in admission.manualRun(job: job, now: now).actions {
                    action.log(to: logger, admission: admission, budget: budget, now: now)
                }
            }
        }
        // Her first run starts; the 2,999 asked for while it runs are skipped (Overlap=skip).
        ask("alice:flood", times: 3000, now: Self.t0)
        ask("backup", times: 100, now: Self.t0)
        #expect(events(log, .runSkip, job: "alice:flood").count == 50)
        let notes = events(log, .runEntriesDropped)
        #expect(notes.count == 1 && notes.first?.metadata[JobdField.jobUID] == .string("1001"), "\(notes)")
        #expect(events(log, .runSkip, job: "backup").count == 99, "root's entries are not counted")
        // Her next interval: the count is said, then her entry.
        ask("alice:flood", times: 1, now: Self.t0 + .seconds(30))
        let count = events(log, .runEntriesDropped).last?.metadata[JobdField.droppedCount]
        #expect(count == .string("2949"))
        #expect(events(log, .runSkip, job: "alice:flood").count == 51)
    }

    /// The note that a `Condition…=` does not hold, logged before the run's `run.skip`, spends her
    /// budget as the skip does: a user whose condition never holds cannot log around it.
    @Test func aUsersUnmetConditionNotesSpendHerBudget() throws {
        let (configured, budget, log, logger) = Self.alicesAndRoots("alice:cond", burst: 10)
        var admission = configured
        let condition = try UnitCondition.read(.pathExists, isAssertion: false, value: "/nonexistent").get()
        // As the main loop does: the run is due, its condition does not hold, the note, the skip.
        for job in ["alice:cond", "backup"] {
            for _ in 0 ..< 100 {
                for case .start(let request) in admission.manualRun(job: job, now: Self.t0).actions {
                    logger.conditionUnmet(condition, of: request, budget: budget, now: Self.t0)
                    for action in admission.startDeclined(job: job, runID: request.runID, reason: "condition", now: Self.t0) {
                        action.log(to: logger, admission: admission, budget: budget, now: Self.t0)
                    }
                }
            }
        }
        let notes = { (job: String) in
            log.entries.filter { $0.metadata[JobdField.condition] != nil && $0.metadata[JobdField.job] == .string(job) }.count
        }
        #expect(notes("alice:cond") + events(log, .runSkip, job: "alice:cond").count == 10, "her notes and skips together, at most her burst")
        #expect(notes("alice:cond") == 5)
        #expect(events(log, .runEntriesDropped).count == 1)
        #expect(notes("backup") == 100 && events(log, .runSkip, job: "backup").count == 100, "root's are not counted")
    }
}

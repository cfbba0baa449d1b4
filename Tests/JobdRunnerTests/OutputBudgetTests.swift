import InMemoryLogging
import JobdConfig
import JobdLogging
import JobdRunner
import JobdTimers
import Logging
import Testing

/// Issue 37: one user's output cannot spend the journal's rate limit that root's entries need:
/// each user has a budget of journal lines for their own jobs' output, and root's jobs none.
@Suite struct OutputBudgetTests {
    @Test func aUsersLinesBeyondTheBurstWaitForTheNextInterval() {
        let budget = OutputBudget(.init(burst: 3, interval: .seconds(30)))
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        #expect((0..<5).map { _ in budget.take(uid: 1001, now: start) } == [true, true, true, false, false])
        #expect(budget.take(uid: 1002, now: start), "bob's budget is his own")
        #expect(!budget.take(uid: 1001, now: start + .seconds(29)))
        #expect(budget.take(uid: 1001, now: start + .seconds(30)), "a new interval")
        budget.configure(nil)
        #expect((0..<10).allSatisfy { _ in budget.take(uid: 1001, now: start) }, "no limit")
    }

    func run(_ definition: JobDefinition, budget: OutputBudget.Limits) async -> [InMemoryLogHandler.Entry] {
        let log = InMemoryLogHandler()
        var logger = Logger(label: "runner-test") { _ in log }
        logger.logLevel = .debug
        let runner = JobRunner(logger: logger, environment: [:], host: SystemHostFacts())
        runner.outputBudget.configure(budget)
        _ = await runner.run(definition, runID: 1, invocationID: "0123")
        return log.entries
    }

    func seq(_ name: String, owner: String?) throws -> JobDefinition {
        var definition = try JobFileReader.read(name: name, path: "/\(name).job", text: "[Job]\nExecStart=/usr/bin/seq 1 20\n").get()
        definition.owningUser = owner
        definition.owningUID = owner == nil ? nil : 1001
        return definition
    }

    func entries(_ entries: [InMemoryLogHandler.Entry], _ event: JobdEvent) -> [InMemoryLogHandler.Entry] {
        entries.filter { $0.metadata[JobdField.event] == .string(event.rawValue) }
    }

    @Test func aUsersRunLogsItsBudgetAndSaysHowManyLinesItDropped() async throws {
        let logged = await run(try seq("alice:seq", owner: "alice"), budget: .init(burst: 5, interval: .seconds(3600)))
        #expect(entries(logged, .runOutput).map(\.message.description) == ["1", "2", "3", "4", "5"])
        let dropped = try #require(entries(logged, .runOutputDropped).first)
        #expect(dropped.metadata[JobdField.droppedCount] == .string("15"))
        #expect(dropped.message.description.contains("alice's runs wrote more than UserLogRateLimitBurst="))
    }

    @Test func rootsRunsAreNotCounted() async throws {
        let logged = await run(try seq("backup", owner: nil), budget: .init(burst: 5, interval: .seconds(3600)))
        #expect(entries(logged, .runOutput).count == 20)
        #expect(entries(logged, .runOutputDropped).isEmpty)
    }
}

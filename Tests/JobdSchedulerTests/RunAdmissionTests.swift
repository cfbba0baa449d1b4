import JobdConfig
import JobdScheduler
import JobdTestKit
import JobdTimers
import Testing

/// The run admission on its own: every decision about runs, driven by events at fixed instants,
/// without processes or clocks.
@Suite struct RunAdmissionTests {
    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000)
    static func at(_ seconds: Int64) -> MonotonicInstant { t0 + .seconds(seconds) }
    /// The uids of the test's users, as their accounts' would be recorded at load.
    static func uid(_ user: String) -> UInt32 { ["alice": 1001, "bob": 1002][user] ?? 1099 }

    static func job(_ name: String, _ overlap: OverlapPolicy = .skip, _ configure: (inout JobDefinition) -> Void = { _ in }) -> JobDefinition {
        var definition = JobDefinition(
            name: name, path: "/etc/jobd/jobs.d/\(name).job", triggers: [.unitActive(.seconds(60))],
            command: try! ExecCommand.parse("/bin/true"))
        definition.overlap = overlap
        configure(&definition)
        return definition
    }

    static func admission(_ jobs: [JobDefinition], max: Int? = nil) -> RunAdmission {
        let counter = Counter()
        var admission = RunAdmission(maxConcurrentRuns: max) { counter.next() }
        #expect(admission.configure(jobs, maxConcurrentRuns: max, now: t0).isEmpty)
        return admission
    }

    /// Predictable invocation ids: "id1", "id2", …
    final class Counter: Sendable {
        private let value = Guarded(0)
        func next() -> String { value.withLock { $0 += 1; return "id\($0)" } }
    }

    static func started(_ actions: [RunAdmission.Action]) -> [RunRequest] {
        actions.compactMap { if case .start(let request) = $0 { request } else { nil } }
    }

    static func end(_ request: RunRequest, _ result: RunResult = .success, _ termination: RunTermination? = nil) -> RunOutcome {
        RunOutcome(runID: request.runID, invocationID: request.invocationID, job: request.job,
                   termination: termination ?? .exited(result == .success ? 0 : 1), result: result, duration: .seconds(1))
    }

    // MARK: The table: Overlap= × MaxConcurrentRuns= × a reload × what the operator does

    enum ReloadKind: CaseIterable { case keeps, changes, removes }
    enum Operation: CaseIterable { case stop, manualRun, manualRunWaiting }

    static let table: [(OverlapPolicy, Int?, ReloadKind, Operation)] = OverlapPolicy.allCases.flatMap { overlap in
        [1, 2, nil].flatMap { max in
            ReloadKind.allCases.flatMap { reload in Operation.allCases.map { (overlap, max, reload, $0) } }
        }
    }

    /// A run of `a` is in flight (started before a reload), the reload keeps, changes or removes
    /// `a`, then the operator stops it or asks for another run (following it as `--wait` does).
    /// What must hold: the decision follows `Overlap=` and the slots, the run in flight counts
    /// across the reload, a waiting run starts when the slot or the job's run frees up (never for a
    /// removed job), no more than `MaxConcurrentRuns=` runs are ever in flight, and a followed run
    /// always gets an answer.
    @Test(arguments: table)
    func overlapSlotsReloadAndOperations(_ overlap: OverlapPolicy, _ max: Int?, _ reload: ReloadKind, _ operation: Operation) throws {
        var admission = Self.admission([Self.job("a", overlap), Self.job("other")], max: max)
        var all: [RunAdmission.Action] = []
        func apply(_ actions: [RunAdmission.Action]) -> [RunAdmission.Action] {
            all += actions
            #expect(admission.running <= (max ?? .max), "never more than MaxConcurrentRuns= in flight")
            return actions
        }
        let first = try #require(Self.started(apply(admission.due(job: "a", now: Self.at(1)))).first)
        #expect(first.cause == .timer && first.attempt == 0)

        var jobs = [Self.job("other")]
        switch reload {
        case .keeps: jobs.append(Self.job("a", overlap))
        case .changes: jobs.append(Self.job("a", overlap) { $0.description = "changed" })
        case .removes: break
        }
        #expect(apply(admission.configure(jobs, maxConcurrentRuns: max, now: Self.at(2))).isEmpty)
        #expect(admission.isActive("a"), "a run from before the reload still counts")

        switch operation {
        case .stop:
            #expect(apply(admission.stop(job: "a")) == [.stop(job: "a", reason: .requested)])
            #expect(Self.started(apply(admission.runEnded(Self.end(first, .stopped), now: Self.at(3)).actions)).isEmpty)
            #expect(admission.running == 0 && !admission.isActive("a"))
        case .manualRun, .manualRunWaiting:
            let run = admission.manualRun(job: "a", now: Self.at(3))
            let (manual, actions) = (run.request, run.actions)
            _ = apply(actions)
            let expected: [RunAdmission.Action] = switch (reload, overlap) {
            case (.removes, _): [.skip(manual, reason: "no-such-job")]
            case (_, .skip): [.skip(manual, reason: "overlap")]
            case (_, .queue): [.wait(manual, reason: .overlap(replacing: false))]
            case (_, .replace): [.wait(manual, reason: .overlap(replacing: true)), .stop(job: "a", reason: .replaced)]
            case (_, .parallel): max == 1 ? [.wait(manual, reason: .slot)] : [.start(manual)]
            }
            #expect(actions == expected)
            let ended = apply(admission.runEnded(Self.end(first, overlap == .replace ? .stopped : .success), now: Self.at(4)).actions)
            let waited = expected.contains { if case .wait = $0 { true } else { false } }
            #expect(Self.started(ended) == (waited ? [manual] : []), "a waiting run starts once the run in flight ended")
            if operation == .manualRunWaiting {
                // Whoever follows the run hears of it: it started (and ends below), or was skipped.
                let answered = all.contains { action in
                    switch action {
                    case .start(let run), .skip(let run, _), .drop(let run, _): run == manual
                    default: false
                    }
                }
                #expect(answered)
            }
            for run in admission.runsInFlight(of: "a") { _ = apply(admission.runEnded(Self.end(run.request), now: Self.at(5)).actions) }
            #expect(admission.running == 0)
        }
    }

    /// A job's runs in flight are kept one inline and the others aside (issue 39): with
    /// `Overlap=parallel`, each run is found, listed oldest first and ended in any order, and a run
    /// started after the first ended takes its place.
    @Test func aParallelJobsRunsInFlightAreEachFoundAndEndInAnyOrder() throws {
        var admission = Self.admission([Self.job("a", .parallel)])
        var runs = (1...3).flatMap { Self.started(admission.due(job: "a", now: Self.at(Int64($0)))) }
        #expect(runs.count == 3)
        #expect(admission.runsInFlight(of: "a").map(\.request) == runs)
        for run in runs { #expect(admission.runInFlight(of: "a", runID: run.runID)?.request == run) }
        _ = admission.runEnded(Self.end(runs.removeFirst()), now: Self.at(4))
        #expect(admission.runsInFlight(of: "a").map(\.request) == runs)
        runs += Self.started(admission.due(job: "a", now: Self.at(5)))
        #expect(admission.runsInFlight(of: "a").map(\.request) == runs)
        #expect(Set(admission.runsInFlightByID.keys) == Set(runs.map(\.runID)))
        for run in runs.reversed() {
            _ = admission.runEnded(Self.end(run), now: Self.at(6))
            #expect(admission.runInFlight(of: "a", runID: run.runID) == nil)
        }
        #expect(admission.running == 0)
        #expect(!admission.isActive("a"))
        #expect(admission.tableCapacity == 0)
    }

    // MARK: Slots

    /// Issue 36: a run handed over by an earlier jobd is in flight under its own `JOBD_RUN_ID`:
    /// counted against the limit and for Overlap=, its end judged as any run's; none of a job that
    /// is gone, none while jobd stops.
    @Test func anAdoptedRunIsInFlightUnderItsOwnRunIDAndCounts() throws {
        var admission = Self.admission([Self.job("backup"), Self.job("other")], max: 1)
        let adoption = admission.adopt(job: "backup", invocationID: "0123abcd", cause: .timer, now: Self.at(0))
        let adopted = try #require(adoption)
        #expect(adopted.invocationID == "0123abcd" && admission.running == 1 && admission.isActive("backup"))
        let backup = admission.due(job: "backup", now: Self.at(1))
        #expect(backup.contains { if case .skip = $0 { true } else { false } }, "Overlap=skip sees the adopted run")
        let other = admission.due(job: "other", now: Self.at(1))
        #expect(other.contains { if case .wait(_, .slot) = $0 { true } else { false } })
        #expect(admission.adopt(job: "gone", invocationID: "4567abcd", cause: .timer, now: Self.at(2)) == nil)
        _ = admission.shutdown()
        #expect(admission.adopt(job: "other", invocationID: "89abcdef", cause: .timer, now: Self.at(3)) == nil)
    }

    /// Issue 39, item 4: a dictionary keeps the room of its largest burst after its entries
    /// leave. Once a burst of 1,000 runs (each of its own user's job: the runs' users are a
    /// table too) has ended, the admission's per-run tables hold no room, so the trim after the
    /// burst can give their memory back.
    @Test func theRunTablesGiveTheirRoomBackOnceABurstHasEnded() throws {
        let names = (0..<1_000).map { "user\($0):job" }
        var admission = Self.admission(names.enumerated().map { index, name in
            Self.job(name) { $0.owningUser = String(name.prefix { $0 != ":" }); $0.owningUID = UInt32(10_000 + index) }
        })
        let requests = names.flatMap { Self.started(admission.due(job: $0, now: Self.at(1))) }
        #expect(requests.count == 1_000 && admission.running == 1_000)
        #expect(admission.tableCapacity >= 2_000, "the burst grew both tables")
        for request in requests.dropLast() { _ = admission.runEnded(Self.end(request), now: Self.at(2)) }
        #expect(admission.tableCapacity >= 2_000, "room stays while a run of the burst is in flight")
        _ = admission.runEnded(Self.end(try #require(requests.last)), now: Self.at(2))
        #expect(admission.running == 0 && admission.tableCapacity == 0)
    }

    @Test func runsWaitForASlotInTheOrderTheyFellDueAndARaisedLimitStartsThem() throws {
        var admission = Self.admission(["a", "b", "c"].map { Self.job($0) }, max: 1)
        let a = try #require(Self.started(admission.due(job: "a", now: Self.at(1))).first)
        let waitC = admission.due(job: "c", now: Self.at(2))
        let waitB = admission.due(job: "b", now: Self.at(3))
        #expect(Self.started(waitC + waitB).isEmpty && admission.waitingForSlot == 2)
        #expect(Self.started(admission.runEnded(Self.end(a), now: Self.at(4)).actions).map(\.job) == ["c"])
        let raised = admission.configure(["a", "b", "c"].map { Self.job($0) }, maxConcurrentRuns: nil, now: Self.at(5))
        #expect(Self.started(raised).map(\.job) == ["b"])
    }

    /// `UserRunsMax=`: a user's own runs beyond it wait for one of theirs to end, and hold up no
    /// other user's runs or the system's (issue 29).
    @Test func aUsersRunsBeyondUserRunsMaxWaitForTheirOwnAndNoOnesElse() throws {
        func owned(_ name: String, by user: String?) -> JobDefinition { Self.job(name) { $0.owningUser = user; $0.owningUID = user.map(Self.uid) } }
        var settings = DaemonSettings()
        settings.userRunsMax = 1
        let jobs = [owned("alice:a", by: "alice"), owned("alice:b", by: "alice"), owned("bob:a", by: "bob"), owned("system", by: nil)]
        var admission = RunAdmission { "id" }
        #expect(admission.configure(Generation(jobs: jobs, settings: settings), now: Self.t0).isEmpty)
        let first = try #require(Self.started(admission.due(job: "alice:a", now: Self.at(1))).first)
        let second = admission.due(job: "alice:b", now: Self.at(2))
        #expect(Self.started(second).isEmpty)
        #expect(second.contains { if case .wait(_, .userSlot(uid: 1001)) = $0 { true } else { false } }, "\(second)")
        #expect(Self.started(admission.due(job: "bob:a", now: Self.at(3))).map(\.job) == ["bob:a"])
        #expect(Self.started(admission.due(job: "system", now: Self.at(4))).map(\.job) == ["system"])
        #expect(admission.running(ofUID: 1001) == 1 && admission.running == 3)
        #expect(Self.started(admission.runEnded(Self.end(first), now: Self.at(5)).actions).map(\.job) == ["alice:b"])
    }

    /// Issue 37: a user's budget is her account's, by the uid recorded at load, never her name's.
    /// Two names of one uid share one `UserRunsMax=`; an account deleted and re-created under the
    /// same name with another uid inherits none of the old account's runs in flight.
    @Test func userRunsMaxIsByUIDSoARecreatedNameSharesNothingAndTwoNamesOfOneUIDShareIt() throws {
        func owned(_ name: String, by user: String, uid: UInt32) -> JobDefinition {
            Self.job(name) { $0.owningUser = user; $0.owningUID = uid }
        }
        var settings = DaemonSettings()
        settings.userRunsMax = 1
        var admission = RunAdmission { "id" }
        let before = [owned("alice:a", by: "alice", uid: 1001), owned("alice:b", by: "alice", uid: 1001), owned("alias:c", by: "alias", uid: 1001)]
        #expect(admission.configure(Generation(jobs: before, settings: settings), now: Self.t0).isEmpty)
        #expect(Self.started(admission.due(job: "alice:a", now: Self.at(1))).map(\.job) == ["alice:a"])
        let alias = admission.due(job: "alias:c", now: Self.at(2))
        #expect(alias.contains { if case .wait(_, .userSlot(uid: 1001)) = $0 { true } else { false } }, "one uid, one budget: \(alias)")
        // alice is deleted and re-created with uid 1005; the old account's run is still in flight.
        let after = [owned("alice:a", by: "alice", uid: 1005), owned("alice:b", by: "alice", uid: 1005), owned("alias:c", by: "alias", uid: 1001)]
        _ = admission.configure(Generation(jobs: after, settings: settings), now: Self.at(3))
        #expect(Self.started(admission.due(job: "alice:b", now: Self.at(4))).map(\.job) == ["alice:b"], "the new alice inherits nothing")
        #expect(admission.running(ofUID: 1001) == 1 && admission.running(ofUID: 1005) == 1)
        #expect(admission.waiting(ofUID: 1001) == 1)
    }

    /// `UserWaitingRunsMax=` and `JobWaitingRunsMax=` (issue 37): a flood of 3,000 `jobctl run`
    /// of a user's `Overlap=parallel` job leaves at most 100 waiting; the rest are skipped with the
    /// reason the client is answered, and another user's and the system's runs still start.
    @Test func aFloodOfRunRequestsFromOneUserLeavesAtMost100Waiting() throws {
        func owned(_ name: String, by user: String?) -> JobDefinition { Self.job(name, .parallel) { $0.owningUser = user; $0.owningUID = user.map(Self.uid) } }
        let jobs = (0..<8).map { owned("alice:j\($0)", by: "alice") } + [owned("bob:a", by: "bob"), owned("system", by: nil)]
        var admission = RunAdmission { "id" }
        #expect(admission.configure(Generation(jobs: jobs, settings: DaemonSettings()), now: Self.t0).isEmpty)
        var fates: [RunAdmission.ManualRun.Fate: Int] = [:]
        var queued: [RunRequest] = []
        for index in 0..<3000 {
            let run = admission.manualRun(job: "alice:j\(index % 8)", now: Self.at(1))
            fates[run.fate, default: 0] += 1
            if run.fate == .queued { queued.append(run.request) }
        }
        #expect(fates == [.started: 4, .queued: 100, .skipped(reason: "user-waiting-runs-max"): 2896])
        #expect(admission.waiting(ofUID: 1001) == 100 && admission.waitingForSlot == 100)
        #expect(Self.started(admission.manualRun(job: "bob:a", now: Self.at(2)).actions).map(\.job) == ["bob:a"])
        #expect(admission.manualRun(job: "system", now: Self.at(2)).fate == .started)
        // One job alone is held to JobWaitingRunsMax= (32 by default) of the user's 100.
        var one = RunAdmission { "id" }
        _ = one.configure(Generation(jobs: jobs, settings: DaemonSettings()), now: Self.t0)
        let skipped = (0..<200).map { _ in one.manualRun(job: "alice:j0", now: Self.at(1)).fate }
        #expect(skipped.filter { $0 == .queued }.count == 32)
        #expect(skipped.last == .skipped(reason: "job-waiting-runs-max"))
        // The waiting runs start in the order they were asked for, as alice's runs end.
        var inFlight = Set((0..<8).flatMap { admission.runsInFlight(of: "alice:j\($0)").map(\.request) })
        var order: [RunRequest] = []
        var now = Self.at(3)
        while let next = inFlight.min(by: { $0.runID < $1.runID }) {
            inFlight.remove(next)
            let started = Self.started(admission.runEnded(Self.end(next), now: now).actions)
            order += started
            inFlight.formUnion(started)
            now = now + .seconds(1)
        }
        #expect(order == queued)
        #expect(admission.waitingForSlot == 0 && admission.running(ofUID: 1001) == 0)
    }

    /// The runs waiting for a slot start in the order they fell due whoever's they are, and a
    /// stopped job's waiting runs leave the queue without disturbing that order.
    @Test func runsWaitingForASlotStartInTheOrderTheyFellDueAcrossUsers() throws {
        func owned(_ name: String, by user: String?) -> JobDefinition { Self.job(name, .parallel) { $0.owningUser = user; $0.owningUID = user.map(Self.uid) } }
        let jobs = [owned("alice:a", by: "alice"), owned("bob:a", by: "bob"), owned("system", by: nil), owned("other", by: nil)]
        var admission = RunAdmission { "id" }
        _ = admission.configure(Generation(jobs: jobs, settings: DaemonSettings(maxConcurrentRuns: 1)), now: Self.t0)
        let first = try #require(Self.started(admission.due(job: "other", now: Self.at(1))).first)
        let asked = ["bob:a", "system", "alice:a", "bob:a", "other", "system", "alice:a"].enumerated().map {
            admission.manualRun(job: $0.element, now: Self.at(2 + Int64($0.offset))).request
        }
        let stopped = admission.stop(job: "other")
        #expect(stopped.contains(.drop(asked[4], reason: "stopped")))
        #expect(admission.isActive("alice:a") && !admission.activeJobs.contains("nothing"))
        var order: [RunRequest] = []
        var running = first
        var now = Self.at(20)
        while true {
            let started = Self.started(admission.runEnded(Self.end(running), now: now).actions)
            guard let next = started.first else { break }
            #expect(started.count == 1)
            order.append(next)
            running = next
            now = now + .seconds(1)
        }
        #expect(order == asked.enumerated().filter { $0.offset != 4 }.map(\.element))
    }

    @Test func aRemovedJobsWaitingRunsAreDropped() throws {
        var admission = Self.admission([Self.job("a"), Self.job("b")], max: 1)
        _ = admission.due(job: "a", now: Self.at(1))
        let waiting = try #require(admission.due(job: "b", now: Self.at(2)).compactMap { if case .wait(let run, _) = $0 { run } else { nil } }.first)
        #expect(admission.configure([Self.job("a")], maxConcurrentRuns: 1, now: Self.at(3)) == [.drop(waiting, reason: "job-removed")])
    }

    // MARK: Retries

    static func failing(
        _ name: String = "backup", limit: UInt64 = 2, onFailure: [String] = [], _ configure: (inout JobDefinition) -> Void = { _ in }
    ) -> JobDefinition {
        job(name) {
            configure(&$0)
            $0.restart.condition = .onFailure
            $0.restart.delay = .seconds(2)
            $0.restart.steps = 2
            $0.restart.maxDelay = .seconds(8)
            $0.restart.limit = limit
            $0.onFailure = onFailure
        }
    }

    /// Issue 37: whose a run is travels with it, by uid (`JOBD_JOB_UID=` on its entries, which a
    /// user's `logs` selects by): a user's job's run, its retry and the `OnFailure=` job of hers it
    /// starts carry her uid; a system job's run, none.
    @Test func everyRunOfAUsersJobCarriesItsOwnersUIDAndASystemJobsNone() throws {
        let mine = Self.failing("alice:backup", limit: 1, onFailure: ["alice:notify"]) { $0.owningUID = 1000 }
        var admission = Self.admission([mine, Self.job("alice:notify") { $0.owningUID = 1000 }, Self.job("backup")])
        let run = try #require(Self.started(admission.manualRun(job: "alice:backup", now: Self.at(0)).actions).first)
        let ended = admission.runEnded(Self.end(run, .exitCode), now: Self.at(1))
        let retry = try #require(ended.retry?.request)
        let retried = try #require(Self.started(admission.retriesDue(now: Self.at(60))).first)
        let notify = try #require(Self.started(admission.runEnded(Self.end(retried, .exitCode), now: Self.at(61)).actions).first)
        #expect([run, retry, retried, notify].map(\.owningUID) == [1000, 1000, 1000, 1000])
        #expect(notify.job == "alice:notify")
        let system = try #require(Self.started(admission.manualRun(job: "backup", now: Self.at(62)).actions).first)
        #expect(system.owningUID == nil)
    }

    @Test func aFailedRunIsRetriedWithGrowingDelaysThenItsOnFailureJobStarts() throws {
        var admission = Self.admission([Self.failing(onFailure: ["notify"]), Self.job("notify")])
        var run = try #require(Self.started(admission.due(job: "backup", now: Self.at(0))).first)
        var now = Self.at(1)
        var delays: [TimeSpan] = []
        for attempt in 1...2 {
            let ended = admission.runEnded(Self.end(run, .exitCode), now: now)
            let actions = ended.actions
            guard case .retry(let retry, let due, let delay)? = actions.first else { Issue.record("no retry: \(actions)"); return }
            #expect(retry.attempt == UInt64(attempt) && retry.cause == .retry)
            // What `run --wait` hears of it: the retry, its delay, and of how many (RestartMaxCount=).
            #expect(ended.retry?.request == retry && ended.retry?.delay == delay && ended.retry?.limit == 2 && ended.started.isEmpty)
            #expect(admission.nextRetry == due)
            delays.append(delay)
            #expect(admission.retriesDue(now: MonotonicInstant(nanoseconds: due.nanoseconds - 1_000_000)).isEmpty, "not before its time")
            run = try #require(Self.started(admission.retriesDue(now: due)).first)
            #expect(run.runID == retry.runID)
            now = due + .seconds(1)
        }
        #expect(delays == [.seconds(2), .seconds(4)])
        let ended = admission.runEnded(Self.end(run, .exitCode), now: now)
        let final = ended.actions
        let notify = try #require(Self.started(final).first)
        #expect(ended.retry == nil && ended.started == [notify], "the last failure is final, and starts OnFailure=")
        #expect(notify.job == "notify" && notify.cause == .onFailure)
        let by = try #require(notify.triggeredBy)
        #expect(by.job == "backup" && by.result == .exitCode && by.exitStatus == "1" && by.invocationID == run.invocationID)
        #expect(by.environment["JOBD_TRIGGERED_BY"] == "backup" && by.environment["JOBD_RESULT"] == "exit-code")
        #expect(admission.nextRetry == nil)
    }

    @Test(arguments: [
        (RunTermination.exited(2), true), (.exited(1), false), (.killed(signal: 15), true), (.dumped(signal: 15), true),
        (.killed(signal: 9), false), (.failedToStart("no such file"), true),
    ])
    func restartPreventExitStatusEndsTheRetriesAsSystemd(termination: RunTermination, prevented: Bool) throws {
        var backup = Self.failing(onFailure: ["notify"])
        backup.restart.preventExitStatus = SuccessExitStatus(statuses: [2, 203], signals: [15])  // SIGTERM
        var admission = Self.admission([backup, Self.job("notify")])
        let run = try #require(Self.started(admission.due(job: "backup", now: Self.at(0))).first)
        let result = RunOutcome.result(of: termination, stopReason: nil, ignoresFailure: false)
        let actions = admission.runEnded(Self.end(run, result, termination), now: Self.at(1)).actions
        if prevented {
            // No retry: the failure is final, so OnFailure= starts at once.
            #expect(Self.started(actions).map(\.job) == ["notify"], "\(actions)")
            #expect(admission.nextRetry == nil)
        } else {
            guard case .retry? = actions.first else { Issue.record("no retry: \(actions)"); return }
        }
    }

    @Test func aSuccessStartsOnSuccessJobsAndEndsTheRetries() throws {
        var backup = Self.failing()
        backup.onSuccess = ["report"]
        var admission = Self.admission([backup, Self.job("report")])
        let run = try #require(Self.started(admission.due(job: "backup", now: Self.at(0))).first)
        let actions = admission.runEnded(Self.end(run, .success), now: Self.at(1)).actions
        #expect(Self.started(actions).map(\.job) == ["report"])
        #expect(Self.started(actions).first?.cause == .onSuccess)
    }

    @Test func aTriggerSupersedesAPendingRetry() throws {
        var admission = Self.admission([Self.failing()])
        let run = try #require(Self.started(admission.due(job: "backup", now: Self.at(0))).first)
        guard case .retry(let retry, _, _)? = admission.runEnded(Self.end(run, .signal), now: Self.at(1)).actions.first else {
            Issue.record("no retry"); return
        }
        let actions = admission.due(job: "backup", now: Self.at(2))
        #expect(actions.first == .cancelRetry(retry, reason: "superseded"))
        #expect(Self.started(actions).first?.attempt == 0)
        #expect(admission.nextRetry == nil)
    }

    @Test func stopAndRemovalCancelPendingRetries() throws {
        var admission = Self.admission([Self.failing()])
        var run = try #require(Self.started(admission.due(job: "backup", now: Self.at(0))).first)
        guard case .retry(let retry, _, _)? = admission.runEnded(Self.end(run, .timeout), now: Self.at(1)).actions.first else {
            Issue.record("no retry"); return
        }
        #expect(admission.stop(job: "backup") == [.cancelRetry(retry, reason: "stopped")])
        run = try #require(Self.started(admission.due(job: "backup", now: Self.at(2))).first)
        guard case .retry(let second, _, _)? = admission.runEnded(Self.end(run, .startFailed), now: Self.at(3)).actions.first else {
            Issue.record("no retry"); return
        }
        #expect(admission.configure([], maxConcurrentRuns: nil, now: Self.at(4)) == [.cancelRetry(second, reason: "job-removed")])
    }

    /// The earliest of several jobs' pending retries is the next, whichever job holds it; a retry
    /// stopped, or taken when due, is no longer among them; due retries start in the jobs' order.
    @Test func theNextRetryIsTheEarliestPendingOfEveryJob() throws {
        var admission = Self.admission([Self.failing("a"), Self.failing("b"), Self.failing("c")])
        let runs = try ["c", "a", "b"].map { job in try #require(Self.started(admission.due(job: job, now: Self.at(0))).first) }
        var due: [String: MonotonicInstant] = [:]
        for (offset, run) in runs.enumerated() {
            guard case .retry(_, let at, _)? = admission.runEnded(Self.end(run, .exitCode), now: Self.at(1 + Int64(offset))).actions.first else {
                Issue.record("no retry of \(run.job)"); return
            }
            due[run.job] = at
        }
        #expect(admission.nextRetry == due["c"])
        _ = admission.stop(job: "c")
        #expect(admission.nextRetry == due["a"])
        let started = Self.started(admission.retriesDue(now: Self.at(60)))
        #expect(started.map(\.job) == ["a", "b"])
        #expect(admission.nextRetry == nil)
    }

    @Test func aStoppedRunIsNeitherRetriedNorAFailure() throws {
        var admission = Self.admission([Self.failing(onFailure: ["notify"]), Self.job("notify")])
        let run = try #require(Self.started(admission.due(job: "backup", now: Self.at(0))).first)
        #expect(admission.runEnded(Self.end(run, .stopped), now: Self.at(1)).actions.isEmpty)
    }

    // MARK: OnFailure= chains

    @Test func aNotifierThatFailsAndNotifiesItselfIsNotStartedAgain() throws {
        let notifier = Self.job("notify") { $0.onFailure = ["notify"] }
        var admission = Self.admission([Self.job("backup") { $0.onFailure = ["notify"] }, notifier])
        let backup = try #require(Self.started(admission.due(job: "backup", now: Self.at(0))).first)
        let notify = try #require(Self.started(admission.runEnded(Self.end(backup, .exitCode), now: Self.at(1)).actions).first)
        let again = admission.runEnded(Self.end(notify, .exitCode), now: Self.at(2)).actions
        #expect(again.count == 1)
        guard case .skip(let skipped, "trigger-cycle")? = again.first else { Issue.record("\(again)"); return }
        #expect(skipped.triggeredBy?.chain == ["backup", "notify"])
    }

    @Test func aLongChainStopsAtItsBound() throws {
        let names = (0..<12).map { "j\($0)" }
        var admission = Self.admission(names.enumerated().map { index, name in
            Self.job(name) { if index + 1 < names.count { $0.onFailure = [names[index + 1]] } }
        })
        var run = try #require(Self.started(admission.due(job: "j0", now: Self.at(0))).first)
        var startedJobs = ["j0"]
        while let next = Self.started(admission.runEnded(Self.end(run, .exitCode), now: Self.at(1)).actions).first {
            startedJobs.append(next.job)
            run = next
        }
        #expect(startedJobs.count == RunAdmission.maxChain)
    }

    @Test func anOnFailureJobThatDoesNotExistIsSkippedByName() throws {
        var admission = Self.admission([Self.job("backup") { $0.onFailure = ["missing"] }])
        let run = try #require(Self.started(admission.due(job: "backup", now: Self.at(0))).first)
        let actions = admission.runEnded(Self.end(run, .coreDump), now: Self.at(1)).actions
        guard case .skip(let skipped, "no-such-job")? = actions.first else { Issue.record("\(actions)"); return }
        #expect(skipped.job == "missing")
    }

    // MARK: Shutdown

    @Test func shutdownDropsWhatWaitsAndStopsWhatRuns() throws {
        var admission = Self.admission([Self.job("a", .queue), Self.job("b")], max: 1)
        _ = admission.due(job: "a", now: Self.at(1))
        let queued = admission.due(job: "a", now: Self.at(2))
        let slot = admission.due(job: "b", now: Self.at(3))
        guard case .wait(let q, _)? = queued.first, case .wait(let s, _)? = slot.first else { Issue.record("no waits"); return }
        #expect(admission.shutdown() == [.drop(q, reason: "stopping"), .drop(s, reason: "stopping"), .stopAll(.shutdown)])
        #expect(admission.due(job: "b", now: Self.at(4)).first.map { if case .skip(_, "stopping") = $0 { true } else { false } } == true)
    }
}

extension RunAdmissionTests {
    @Test func aDisabledJobsTriggersAreSkippedButManualRunsStart() throws {
        var admission = Self.admission([Self.failing()])
        let run = try #require(Self.started(admission.due(job: "backup", now: Self.at(0))).first)
        guard case .retry(let retry, _, _)? = admission.runEnded(Self.end(run, .exitCode), now: Self.at(1)).actions.first else {
            Issue.record("no retry"); return
        }
        #expect(admission.setDisabled("backup", true) == [.cancelRetry(retry, reason: "disabled")])
        let skipped = admission.due(job: "backup", now: Self.at(2))
        guard case .skip(_, "disabled")? = skipped.first else { Issue.record("\(skipped)"); return }
        #expect(Self.started(admission.manualRun(job: "backup", now: Self.at(3)).actions).count == 1)
        #expect(admission.setDisabled("backup", false).isEmpty)
        #expect(admission.due(job: "backup", now: Self.at(4)).first.map { if case .skip(_, "overlap") = $0 { true } else { false } } == true)
    }
}

extension RunAdmissionTests {
    @Test(arguments: [
        (OverlapPolicy.skip, RunAdmission.ManualRun.Fate.skipped(reason: "overlap")),
        (.queue, .queued), (.replace, .queued), (.parallel, .started),
    ])
    func aRunByHandSaysWhatBecameOfItWhileTheJobRuns(overlap: OverlapPolicy, fate: RunAdmission.ManualRun.Fate) {
        var admission = Self.admission([Self.job("a", overlap)])
        #expect(admission.manualRun(job: "a", now: Self.at(1)).fate == .started)
        #expect(admission.manualRun(job: "a", now: Self.at(2)).fate == fate)
    }

    @Test func aRunByHandOfAJobThatIsNotThereIsSkipped() {
        var admission = Self.admission([Self.job("a")])
        #expect(admission.manualRun(job: "b", now: Self.at(1)).fate == .skipped(reason: "no-such-job"))
    }
}

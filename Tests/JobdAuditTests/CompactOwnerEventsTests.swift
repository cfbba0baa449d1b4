import JobdAudit
import JobdLogging
import Testing

/// The audit of start-ups, reloads and stops that log many owners at once (`owners.init`,
/// `timers.invalidate`, `owners.deinit`, owner ids as ranges) is as exact as the audit of one entry
/// per owner: a leak is named by its job, a late release is found.
@Suite struct CompactOwnerEventsTests {
    /// A jobd of 300 jobs as the audit sees it, logging its owners one entry each or compactly: a
    /// reload replaces 100 jobs, removes one and adds one; `leaking` is not released by it, and is
    /// released `late` (after jobd reported it) or never; then a stop, or the journal ends.
    func scenario(compact: Bool, leaking: String? = nil, late: Bool = false, stop: Bool = true) -> SyntheticJournal {
        var journal = SyntheticJournal()
        var owners: [String: (id: Int, created: Int)] = [:]
        var nextID = 1
        func create(_ jobs: [String], in generation: Int) {
            var made: [(job: String, owner: Int)] = []
            for job in jobs {
                owners[job] = (nextID, generation)
                made.append((job, nextID))
                nextID += 1
            }
            if compact {
                journal.ownersInit(made, generation: generation)
            } else {
                for (job, owner) in made { journal.ownerInit(job, owner: owner, generation: generation) }
            }
        }
        func release(_ gone: [(job: String, id: Int, created: Int)], reason: String, invalidated: Bool) {
            if compact {
                if !invalidated { journal.timersInvalidate(gone.map(\.id), reason: reason) }
                journal.ownersDeinit(gone.map(\.id))
            } else {
                for owner in gone {
                    if !invalidated { journal.timerInvalidate(owner.job, owner: owner.id, reason: reason) }
                    journal.ownerDeinit(owner.job, owner: owner.id, generation: owner.created, invalidate: false)
                }
            }
        }

        journal.start()
        create((0..<300).map { "job\($0)" }, in: 1)
        journal.load(1)
        journal.event("daemon.ready", ["JOBD_GENERATION": "1"])

        journal.advance(seconds: 60)
        journal.event("reload.start")
        let replaced = (0..<100).map { "job\($0)" } + ["job299"]
        let kept = owners.filter { !replaced.contains($0.key) }.map { UInt64($0.value.id) }
        let ranges = OwnerIDRanges(kept)
        journal.ownersRetain(ranges.description, count: ranges.count, into: 2)
        let old = replaced.map { (job: $0, id: owners[$0]!.id, created: owners[$0]!.created) }
        owners["job299"] = nil
        create((0..<100).map { "job\($0)" } + ["extra"], in: 2)
        release(old.filter { $0.job != leaking }, reason: "owner-deinit", invalidated: false)
        journal.load(2)
        journal.event("reload.done", ["JOBD_GENERATION": "2"])

        if let leaking, let leaked = old.first(where: { $0.job == leaking }) {
            journal.advance(seconds: 10)
            journal.event("owner.leak", ["JOB": leaking, "JOBD_OWNER": "\(leaked.id)", "JOBD_GENERATION": "1"])
            if late {
                // Released after the batch: jobd logs this one on its own, as before.
                journal.advance(seconds: 1)
                journal.ownerDeinit(leaking, owner: leaked.id, generation: 1)
                journal.event("owner.late-deinit", ["JOB": leaking, "JOBD_OWNER": "\(leaked.id)", "JOBD_GENERATION": "1"])
            }
        }
        if stop {
            journal.event("daemon.stop")
            let live = owners.map { (job: $0.key, id: $0.value.id, created: $0.value.created) }.sorted { $0.id < $1.id }
            if compact {
                journal.timersInvalidate(live.map(\.id), reason: "shutdown")
            } else {
                for owner in live { journal.timerInvalidate(owner.job, owner: owner.id, reason: "shutdown") }
            }
            journal.event("generation.retire", ["JOBD_GENERATION": "2"])
            release(live, reason: "shutdown", invalidated: true)
            journal.event("daemon.exit")
        }
        return journal
    }

    @Test(arguments: [(nil, false, true), ("job5", false, true), ("job5", true, true), ("job5", false, false)])
    func compactEntriesAuditExactlyAsOneEntryPerOwner(leaking: String?, late: Bool, stop: Bool) throws {
        let perOwner = scenario(compact: false, leaking: leaking, late: late, stop: stop)
        let compact = scenario(compact: true, leaking: leaking, late: late, stop: stop)
        let expected = LifecycleAuditor.audit(perOwner.entries), report = LifecycleAuditor.audit(compact.entries)
        #expect(CompactRetainTests.Verdict(report) == CompactRetainTests.Verdict(expected))
        #expect(report.instances[0].timers == expected.instances[0].timers)
        #expect(compact.entries.count < 25, "a few entries instead of \(perOwner.entries.count)")
        guard let leaking else {
            #expect(report.verdict == .clean, "\(report.text())")
            #expect(report.instances[0].owners.created == 401 && report.instances[0].owners.released == 401)
            return
        }
        #expect(report.verdict == .failed, "\(report.text())")
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.job == leaking, "named by the job its owners.init gave it")
        #expect(problem.owner == 6 && problem.generation == 1)
        #expect(problem.kind == (late ? .lateRelease : .leak))
        if !late {
            #expect(report.instances[0].unreleasedOwners.filter { $0.state == .leaked }.map(\.job) == [leaking])
        }
    }

    /// 50 owners created and stopped compactly: the shutdown invalidates the timers of `invalidated`
    /// and releases `released`.
    func compactStartAndStop(invalidated: ClosedRange<Int>, released: ClosedRange<Int>) -> AuditReport {
        var journal = SyntheticJournal()
        journal.start()
        journal.ownersInit((1...50).map { ("job\($0)", $0) }, generation: 1)
        journal.load(1)
        journal.event("daemon.stop")
        journal.timersInvalidate(Array(invalidated), reason: "shutdown")
        journal.event("generation.retire", ["JOBD_GENERATION": "1"])
        journal.ownersDeinit(Array(released))
        journal.event("daemon.exit")
        return LifecycleAuditor.audit(journal.entries)
    }

    /// No owner.leak names it: the job comes from the owners.init alone.
    @Test func anOwnerNeverReleasedIsNamedByTheJobItsOwnersInitGaveIt() {
        let report = compactStartAndStop(invalidated: 1...50, released: 1...49)
        #expect(report.verdict == .failed)
        #expect(report.problems.map(\.kind) == [.leak])
        #expect(report.problems.map(\.job) == ["job50"])
        #expect(report.problems.first?.owner == 50 && report.problems.first?.generation == 1)
    }

    /// An owner released but whose timer's invalidation is in no entry, single or compact.
    @Test func aReleaseWithoutItsTimersInvalidationIsFound() {
        let report = compactStartAndStop(invalidated: 1...49, released: 1...50)
        #expect(report.verdict == .failed)
        #expect(report.problems.map(\.kind) == [.timerNotInvalidated])
        #expect(report.problems.map(\.job) == ["job50"])
    }

    @Test(arguments: ["owners.init", "owners.deinit", "timers.invalidate"])
    func unreadableOwnerRangesMakeTheInstanceIncomplete(kind: String) {
        var journal = SyntheticJournal()
        journal.startUp([("a", 1)])
        journal.event(kind, ["JOBD_OWNERS": "1-x", "JOBD_OWNER_COUNT": "1", "JOBD_GENERATION": "1", "JOBD_JOBS": "a",
                             "JOBD_REASON": "shutdown"])
        journal.cleanStop(generation: 1, owners: [("a", 1, 1)])

        let report = LifecycleAuditor.audit(journal.entries)
        #expect(report.verdict == .incomplete, "\(report.text())")
        #expect(report.instances[0].incompleteReasons.contains { $0.contains("unreadable JOBD_OWNERS") })
    }

    /// Jobs that do not match the owners one for one: the owners still count, the entry is malformed.
    @Test func jobsThatDoNotMatchTheOwnersAreMalformed() {
        var journal = SyntheticJournal()
        journal.start()
        journal.event("owners.init", ["JOBD_OWNERS": "1-3", "JOBD_OWNER_COUNT": "3", "JOBD_GENERATION": "1", "JOBD_JOBS": "a b"])
        journal.load(1)
        journal.event("daemon.stop")
        journal.timersInvalidate([1, 2, 3], reason: "shutdown")
        journal.event("generation.retire", ["JOBD_GENERATION": "1"])
        journal.ownersDeinit([1, 2, 3])
        journal.event("daemon.exit")

        let report = LifecycleAuditor.audit(journal.entries)
        #expect(report.verdict == .incomplete, "\(report.text())")
        #expect(report.instances[0].malformedExamples.first?.field == "JOBD_JOBS")
        #expect(report.instances[0].owners.created == 3 && report.instances[0].owners.released == 3)
    }
}

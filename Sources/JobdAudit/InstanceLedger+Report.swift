import JobdLogging

extension InstanceLedger {
    /// Judges every owner and fire and makes the instance's report.
    /// - Parameters:
    ///   - horizon: the last moment the journal vouches for: grace periods are measured to it.
    ///   - graceUSec: how long a retired owner may take to be released, unless jobd logged its own.
    ///   - clock: how times are written in problems' details.
    ///   - gaps: why entries of this instance may be missing in the middle (journald's rate limit).
    ///     With gaps, a finding that rests on an entry's absence (an owner not seen released, a timer's
    ///     invalidation or a late fire's `run.skip` not seen) proves nothing: the entry may be among
    ///     those dropped. Such findings make the instance incomplete, and its owners `unaccounted`,
    ///     instead of failing the audit. What jobd reported itself (`owner.leak`) and what the
    ///     entries present show (a late release) still fail it.
    func report(horizon: JournalInstant, graceUSec defaultGraceUSec: UInt64, clock: AuditClock, gaps: [String] = []) -> InstanceReport {
        let graceUSec = leakGraceUSec ?? defaultGraceUSec
        var totals = OwnerCounts()
        var byGeneration: [UInt64: OwnerCounts] = [:]
        var unreleased: [UnreleasedOwner] = []
        var problems: [AuditProblem] = []

        for id in ownerOrder {
            let owner = owners[id]!
            var counts = owner.createdGeneration.flatMap { byGeneration[$0] } ?? OwnerCounts()
            if owner.created != nil { counts.created += 1 } else { totals.unknownOrigin += 1 }
            if owner.carriedOver { counts.carriedOver += 1 }
            if let released = owner.released {
                counts.released += 1
                if let problem = lateRelease(owner, released: released, graceUSec: graceUSec, clock: clock) { problems.append(problem) }
                if owner.created != nil, !invalidatedOwners.contains(owner.id), !(owner.timer.map(invalidatedTimers.contains) ?? false) {
                    problems.append(problem(.timerNotInvalidated, owner, at: released,
                        "released at \(clock.describe(released)) but its timer\(owner.timer.map { " \($0)" } ?? "") was never invalidated"))
                }
            } else {
                var (state, problem) = judgeAlive(owner, horizon: horizon, graceUSec: graceUSec, clock: clock)
                if state == .leaked, owner.leakReported == nil, !gaps.isEmpty {
                    state = .unaccounted
                    problem = nil
                }
                switch state {
                case .running: counts.running += 1; totals.running += 1
                case .pending: counts.pending += 1; totals.pending += 1
                case .leaked: counts.leaked += 1; totals.leaked += 1
                case .unaccounted: counts.unaccounted += 1; totals.unaccounted += 1
                }
                if let problem { problems.append(problem) }
                unreleased.append(UnreleasedOwner(
                    job: owner.job, owner: owner.id, generation: owner.createdGeneration,
                    lastGeneration: owner.lastGeneration, state: state, retiredUSec: owner.retired?.realtimeUSec))
            }
            if let generation = owner.createdGeneration { byGeneration[generation] = counts }
            totals.created += owner.created != nil ? 1 : 0
            totals.released += owner.released != nil ? 1 : 0
            totals.carriedOver += owner.carriedOver ? 1 : 0
        }
        problems += lateFireProblems(clock: clock)

        var reasons: [String] = []
        if firstEvent != JobdEvent.daemonStart.rawValue {
            reasons.append("the journal starts mid-instance: its first entry is \(firstEvent ?? "an entry without JOBD_EVENT") "
                + "at \(clock.describe(first)) (older entries rotated away, or cut by --since)")
        }
        if totals.unknownOrigin > 0 {
            reasons.append("\(totals.unknownOrigin) owner(s) appear without their owner.init")
        }
        if malformedCount > 0 {
            reasons.append("\(malformedCount) jobd entr\(malformedCount == 1 ? "y" : "ies") could not be read (a field the audit "
                + "judges by is missing, not a number, or names jobs that do not match its owners): what they recorded is unknown")
        }
        if unreadableCompactEntries > 0 {
            reasons.append("\(unreadableCompactEntries) compact entr\(unreadableCompactEntries == 1 ? "y (owner.retain, owners.init, owners.deinit or timers.invalidate) has" : "ies (owner.retain, owners.init, owners.deinit or timers.invalidate) have") "
                + "an unreadable JOBD_OWNERS: the owners they name are unknown")
        }
        reasons.append(contentsOf: gaps)
        if !gaps.isEmpty {
            if totals.unaccounted > 0 {
                reasons.append("\(totals.unaccounted) retired owner(s) not seen released: their owner.deinit may be among "
                    + "the dropped entries, so they are unaccounted for, not proven leaked")
            }
            let restsOnAbsence = { (problem: AuditProblem) in problem.kind == .fireAfterDeinit || problem.kind == .timerNotInvalidated }
            let unproven = problems.filter(restsOnAbsence)
            if !unproven.isEmpty {
                problems.removeAll(where: restsOnAbsence)
                reasons.append("\(unproven.count) finding(s) that rest on an entry not seen (a timer.invalidate or a "
                    + "run.skip), which may be among the dropped entries: \(unproven[0].detail)")
            }
        }
        if exited == nil {
            reasons.append("no daemon.exit: jobd is still running, was killed, or the journal was cut (--until)")
        }
        if droppedEntries > 0 {
            reasons.append("jobd dropped \(droppedEntries) log entries while the journal took none (log.dropped): "
                + "the journal does not hold all it logged")
        }
        let verdict: AuditVerdict = !problems.isEmpty ? .failed
            : totals.pending > 0 ? .pending
            : reasons.isEmpty ? .clean : .incomplete
        let generationReports = generationOrder.map { number in
            let ledger = generations[number]!
            return GenerationReport(
                generation: number, loadedUSec: ledger.loaded?.realtimeUSec, endedUSec: ledger.ended?.realtimeUSec,
                ending: ledger.ending, owners: byGeneration[number] ?? OwnerCounts(), carriedIn: ledger.carriedIn)
        }
        return InstanceReport(
            instance: id, bootID: first.bootID, firstEntryUSec: first.realtimeUSec, lastEntryUSec: last.realtimeUSec,
            startedUSec: started?.realtimeUSec, stoppedUSec: stopped?.realtimeUSec, exitedUSec: exited?.realtimeUSec,
            ending: exited == nil ? .cutOff : stopped == nil ? .exited : .stopped,
            complete: reasons.isEmpty, incompleteReasons: reasons, reloads: reloads, failedReloads: failedReloads,
            generations: generationReports, owners: totals, timers: timers, unreleasedOwners: unreleased,
            problems: problems, verdict: verdict, malformedEntries: malformedCount, malformedExamples: malformedExamples)
    }

    /// A timer that fired after its owner's deinit, and whose fire the scheduler did not drop.
    private func lateFireProblems(clock: AuditClock) -> [AuditProblem] {
        lateFires.map { fire in
            AuditProblem(
                kind: .fireAfterDeinit, job: fire.job ?? owners[fire.owner]?.job, owner: fire.owner,
                generation: owners[fire.owner]?.createdGeneration, timer: fire.timer, realtimeUSec: fire.fired.realtimeUSec,
                detail: "timer fired at \(clock.describe(fire.fired)), after its owner's deinit at "
                    + "\(clock.describe(fire.released)), and the scheduler did not drop the fire (no run.skip owner-retired)")
        }
    }

    /// A released owner's late release: after jobd reported it leaked, or after its grace period.
    private func lateRelease(
        _ owner: OwnerRecord, released: JournalInstant, graceUSec: UInt64, clock: AuditClock
    ) -> AuditProblem? {
        if let reported = owner.leakReported {
            return problem(.lateRelease, owner, at: released,
                "reported leaked by jobd at \(clock.describe(reported))\(held(owner)), released only at "
                    + "\(clock.describe(released))\(owner.retired.map { ", \(AuditClock.seconds($0.microseconds(until: released))) after it was retired" } ?? "")")
        }
        if let retired = owner.retired, retired.microseconds(until: released) >= graceUSec {
            return problem(.lateRelease, owner, at: released,
                "retired by \(owner.retiredBy ?? "?") at \(clock.describe(retired)), released only "
                    + "\(AuditClock.seconds(retired.microseconds(until: released))) later, past the \(AuditClock.seconds(graceUSec)) grace period")
        }
        return nil
    }

    /// What an owner alive at the end means.
    private func judgeAlive(
        _ owner: OwnerRecord, horizon: JournalInstant, graceUSec: UInt64, clock: AuditClock
    ) -> (UnreleasedOwner.State, AuditProblem?) {
        if let reported = owner.leakReported {
            return (.leaked, problem(.leak, owner, at: reported,
                "reported leaked by jobd at \(clock.describe(reported))\(held(owner)), never released"))
        }
        guard let retired = owner.retired else { return (.running, nil) }
        if let exited {
            return (.leaked, problem(.leak, owner, at: exited,
                "retired by \(owner.retiredBy ?? "?") at \(clock.describe(retired)), still not released when jobd "
                    + "exited at \(clock.describe(exited))"))
        }
        let elapsed = retired.microseconds(until: horizon)
        guard elapsed >= graceUSec else { return (.pending, nil) }
        return (.leaked, problem(.leak, owner, at: horizon,
            "retired by \(owner.retiredBy ?? "?") at \(clock.describe(retired)), not released "
                + "\(AuditClock.seconds(elapsed)) later (the end of what the journal shows), past the "
                + "\(AuditClock.seconds(graceUSec)) grace period"))
    }

    private func held(_ owner: OwnerRecord) -> String {
        owner.leakReason.map { " (held by: \($0))" } ?? ""
    }

    private func problem(_ kind: AuditProblem.Kind, _ owner: OwnerRecord, at time: JournalInstant, _ detail: String) -> AuditProblem {
        AuditProblem(
            kind: kind, job: owner.job, owner: owner.id, generation: owner.createdGeneration, timer: owner.timer,
            realtimeUSec: time.realtimeUSec, detail: detail)
    }
}

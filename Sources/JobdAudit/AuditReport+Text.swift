extension AuditReport {
    /// The report for people: a summary per instance, one line per generation, each problem on its
    /// own line naming job, owner and generation, and a last line with the verdict.
    ///
    /// ```
    /// jobd instance 8472b3…: started 2025-06-01 12:00:00.000, stopped 12:05:00.000 (clean stop),
    ///   3 generations, 2 reloads; 14 owners: 14 released, 0 alive, 0 leaked;
    ///   timers: 14 invalidated (owner-deinit 3, shutdown 11); verdict: clean
    /// ```
    package func text(clock: AuditClock = AuditClock()) -> String {
        var lines: [String] = []
        for instance in instances {
            lines.append(contentsOf: Self.lines(for: instance, clock: clock))
        }
        if instances.isEmpty {
            lines.append("no jobd entries (SYSLOG_IDENTIFIER=jobd with JOBD_INSTANCE) in the journal read")
        }
        if foreignEntries > 0 {
            lines.append("\(foreignEntries) entries claim to be jobd's but were written by another process; left out, "
                + "the audit cannot vouch for what they claim:")
            lines.append(contentsOf: foreignExamples.map { "  " + $0 })
            if foreignEntries > foreignExamples.count { lines.append("  … and \(foreignEntries - foreignExamples.count) more") }
        }
        let problemCount = problems.count
        let unreadable = malformedEntries > 0 ? ", \(malformedEntries) unreadable" : ""
        lines.append("audit: \(instances.count) instance(s), \(entries) entries\(unreadable), \(problemCount) problem(s); "
            + "verdict: \(verdict.rawValue)")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func lines(for instance: InstanceReport, clock: AuditClock) -> [String] {
        let owners = instance.owners
        let timers = instance.timers
        var head = "jobd instance \(instance.instance): "
        if let started = instance.startedUSec {
            head += "started \(clock.describe(realtimeUSec: started))"
        } else {
            head += "first seen \(clock.describe(realtimeUSec: instance.firstEntryUSec))"
        }
        switch instance.ending {
        case .stopped: head += ", stopped \(clock.describe(realtimeUSec: instance.exitedUSec ?? instance.lastEntryUSec)) (clean stop)"
        case .exited: head += ", exited \(clock.describe(realtimeUSec: instance.exitedUSec ?? instance.lastEntryUSec)) without a stop"
        case .cutOff: head += ", last seen \(clock.describe(realtimeUSec: instance.lastEntryUSec)) (no daemon.exit)"
        }
        head += ", \(instance.generations.count) generation(s), \(instance.reloads) reload(s)"
        if instance.failedReloads > 0 { head += " (+\(instance.failedReloads) rejected)" }
        var ownerText = "\(owners.created + owners.unknownOrigin) owners"
        if owners.unknownOrigin > 0 { ownerText += " (\(owners.unknownOrigin) seen without owner.init)" }
        ownerText += ": \(owners.released) released, \(owners.alive) alive"
        if owners.alive > 0 {
            ownerText += " (\(owners.running) running, \(owners.pending) pending"
                + (owners.unaccounted > 0 ? ", \(owners.unaccounted) unaccounted for)" : ")")
        }
        ownerText += ", \(owners.leaked) leaked, \(owners.carriedOver) carried over"
        var timerText = "timers: "
        if let scheduled = timers.scheduled { timerText += "\(scheduled) schedules, " }
        timerText += "\(timers.fired) fired, \(timers.invalidated) invalidated"
        if !timers.invalidatedByReason.isEmpty {
            let reasons = timers.invalidatedByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            timerText += " (\(reasons.joined(separator: ", ")))"
        }
        if timers.lateFiresDropped > 0 { timerText += ", \(timers.lateFiresDropped) late fire(s) dropped" }
        var lines = ["\(head); \(ownerText); \(timerText); verdict: \(instance.verdict.rawValue)"]
        for generation in instance.generations {
            var line = "  generation \(generation.generation):"
            if let loaded = generation.loadedUSec { line += " loaded \(clock.describe(realtimeUSec: loaded))," }
            if let ending = generation.ending, let ended = generation.endedUSec {
                line += " \(ending.rawValue) \(clock.describe(realtimeUSec: ended)),"
            } else {
                line += " running at the end,"
            }
            let counts = generation.owners
            line += " \(counts.created) created, \(counts.released) released, \(counts.carriedOver) carried over"
            if generation.carriedIn > 0 { line += ", \(generation.carriedIn) carried in" }
            if counts.alive > 0 {
                line += ", alive: \(counts.running) running, \(counts.pending) pending, \(counts.leaked) leaked"
                if counts.unaccounted > 0 { line += ", \(counts.unaccounted) unaccounted for" }
            }
            lines.append(line)
        }
        for reason in instance.incompleteReasons { lines.append("  INCOMPLETE: \(reason)") }
        for entry in instance.malformedExamples {
            lines.append("  UNREADABLE: \(entry.event) at \(clock.describe(realtimeUSec: entry.realtimeUSec)): \(entry.problem)")
        }
        if instance.malformedEntries > instance.malformedExamples.count {
            lines.append("  UNREADABLE: … and \(instance.malformedEntries - instance.malformedExamples.count) more")
        }
        for owner in instance.unreleasedOwners where owner.state == .pending {
            lines.append("  PENDING: job \(owner.job) owner \(owner.owner) generation \(owner.generation.map(String.init) ?? "?"): "
                + "retired, within its grace period at the end of the journal; audit again later")
        }
        let unaccounted = instance.unreleasedOwners.filter { $0.state == .unaccounted }
        for owner in unaccounted.prefix(5) {
            lines.append("  UNACCOUNTED: job \(owner.job) owner \(owner.owner) generation \(owner.generation.map(String.init) ?? "?"): "
                + "retired, not seen released; journald dropped entries of this instance")
        }
        if unaccounted.count > 5 { lines.append("  UNACCOUNTED: … and \(unaccounted.count - 5) more") }
        for problem in instance.problems {
            lines.append("  \(problem.kind.rawValue.uppercased()): job \(problem.job ?? "?") owner "
                + "\(problem.owner.map(String.init) ?? "?") generation \(problem.generation.map(String.init) ?? "?"): "
                + problem.detail)
        }
        return lines
    }
}

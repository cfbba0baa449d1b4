import JobdLogging

/// The offline lifecycle audit: folds jobd's journal entries in, one at a time and oldest first,
/// and proves that every job owner was released, or says which was not.
///
/// Pure: no I/O, no clock. Entries go in (`jobctl audit` reads them with `SystemdKit.JournalReader`,
/// matching `SYSLOG_IDENTIFIER=jobd`); a report comes out. Memory grows with the owners and
/// generations seen, not with the entries, so a long journal can be streamed through.
///
/// ```swift
/// var auditor = LifecycleAuditor()
/// for entry in entries { auditor.consume(entry) }
/// let report = auditor.finish(journalEnd: lastEntryOfTheWholeJournal)
/// print(report.text())
/// ```
///
/// How owners are judged, per instance (`JOBD_INSTANCE`):
/// - An owner is **retired** when a `generation.load` comes that did not retain it (a reload that
///   changed or removed its job), at `generation.retire` (shutdown), or at `daemon.exit`.
/// - A released owner (`owner.deinit`, or `owner.late-deinit`) is fine, unless it was released
///   after jobd reported it with `owner.leak`, or more than the grace period after its retirement:
///   a **late release**, which fails the audit.
/// - An owner alive at the end is **running** if it belongs to the running generation of an
///   instance without `daemon.exit`; **leaked** if jobd reported it (`owner.leak`), if jobd exited
///   without releasing it, or if the grace period passed between its retirement and the end of what
///   the journal shows; otherwise **pending**.
/// - A `timer.fire` logged after its owner's `owner.deinit` is possible (the main loop logs a fire
///   when it handles it, and one delivered before a reload can be handled after it), but the
///   scheduler must then drop it (`run.skip` with `JOBD_REASON=owner-retired`), or jobd must be
///   stopping. A late fire that was not dropped is an **impossible order**, which fails the audit.
/// - An instance whose first entry is not `daemon.start`, that has owners without `owner.init`, or
///   that has no `daemon.exit`, is **incomplete**: reported, not failed.
package struct LifecycleAuditor: Sendable {
    /// How long a retired owner may take to be released before it counts as leaked: jobd's own
    /// `LeakGrace`, after which it logs `owner.leak`.
    package static let defaultLeakGrace: Duration = .seconds(5)

    /// `MESSAGE_ID` of journald's "Suppressed N messages from UNIT" (`SD_MESSAGE_JOURNAL_DROPPED`):
    /// its rate limit dropped entries of that unit, possibly jobd's (a chatty job's `run.output`
    /// counts against jobd's limit). Read such entries too: an instance they may concern is
    /// reported incomplete. Only journald's own notes count (``forgedNote(_:)``); others are
    /// foreign, and make the audit suspect.
    ///
    /// journald writes the note only when the unit logs again after its rate-limit interval, so
    /// it can come long after the entries it stands for (after the stop of the instance that lost
    /// them, at the next one's start). What is known: the dropped entries were logged in the same
    /// boot, after the unit's previous note and before this one. So a note concerns every instance
    /// of its unit (`OBJECT_SYSTEMD_UNIT`, else the name after "from") in its boot that was alive
    /// at some time between the unit's previous note and it.
    package static let journalDroppedMessageID = "a596d6fe7bfa4994828e72309e95d61e"

    /// The grace period of this audit.
    package let leakGrace: Duration
    /// How times are written in the findings.
    package let clock: AuditClock
    private var ledgers: [String: InstanceLedger] = [:]
    private var order: [String] = []
    private var entries = 0
    private var unattributed = 0
    private var last: JournalInstant?
    private var suppressions: [Suppression] = []
    /// The `_PID` (and `_SYSTEMD_UNIT`, under a unit) of each instance's `daemon.start`: its
    /// entries come from that process alone.
    private var instancePIDs: [String: String] = [:]
    private var instanceUnits: [String: String] = [:]
    private var foreign = 0
    private var foreignExamples: [String] = []
    /// Foreign entries described in the report, at most.
    package static let foreignExamplesShown = 5
    /// Each instance's unit (`_SYSTEMD_UNIT` of its entries), where it ran as one.
    private var units: [String: String] = [:]

    /// One note of journald's: entries of `unit` logged after `previous` (the unit's note before,
    /// if any) and before `time` were dropped.
    private struct Suppression {
        var time: JournalInstant
        var previous: JournalInstant?
        var unit: String?
        var message: String

        /// Whether the dropped entries may be from an instance of `unit` alive from `first` to `last`.
        func mayConcern(unit instanceUnit: String?, first: JournalInstant, last: JournalInstant) -> Bool {
            if let unit, let instanceUnit, unit != instanceUnit { return false }
            guard time.bootID == first.bootID, !time.isBefore(first) else { return false }
            guard let previous, previous.bootID == time.bootID else { return true }
            return previous.isBefore(last)
        }

        /// The unit a note names: its `OBJECT_SYSTEMD_UNIT`, else the last path component of what
        /// follows "from" in its message (older journalds named the cgroup).
        static func unit(of entry: AuditEntry) -> String? {
            if let unit = entry["OBJECT_SYSTEMD_UNIT"], !unit.isEmpty { return unit }
            guard let words = entry["MESSAGE"]?.split(separator: " "), let from = words.lastIndex(of: "from"),
                  from + 1 < words.count, let named = words[from + 1].split(separator: "/").last
            else { return nil }
            return String(named)
        }
    }

    /// An auditor with no entries yet.
    package init(leakGrace: Duration = Self.defaultLeakGrace, clock: AuditClock = AuditClock()) {
        self.leakGrace = leakGrace
        self.clock = clock
    }

    /// Folds in the next entry; entries must come oldest first, as the journal returns them.
    /// Entries without `JOBD_INSTANCE` are counted and otherwise ignored, except journald's own
    /// notes of dropped messages (``journalDroppedMessageID``).
    package mutating func consume(_ entry: AuditEntry) {
        entries += 1
        last = entry.time
        guard let instance = entry[JobdField.instance] else {
            if entry["MESSAGE_ID"] == Self.journalDroppedMessageID {
                if let why = Self.forgedNote(entry) {
                    noteForeign(entry, "a note of journald's rate limit (\(entry["MESSAGE"] ?? "no message")): \(why)")
                    return
                }
                let unit = Suppression.unit(of: entry)
                let previous = suppressions.last { $0.unit == unit && $0.time.bootID == entry.time.bootID }
                suppressions.append(Suppression(
                    time: entry.time, previous: previous?.time, unit: unit,
                    message: entry["MESSAGE"] ?? "journald suppressed messages"))
            } else {
                unattributed += 1
            }
            return
        }
        // Anyone may write SYSLOG_IDENTIFIER=jobd and JOBD_* fields; only journald's own fields
        // (`_UID`, `_PID`) say who did. Entries without them (built by hand, in tests) are taken
        // as they are.
        if let why = Self.foreignness(of: entry, instance: instance, pid: instancePIDs[instance], unit: instanceUnits[instance]) {
            noteForeign(entry, "\(entry[JobdField.event] ?? "(no event)") of instance \(instance): \(why)")
            return
        }
        if entry[JobdField.event] == JobdEvent.daemonStart.rawValue, instancePIDs[instance] == nil, let pid = entry["_PID"] {
            instancePIDs[instance] = pid
            instanceUnits[instance] = entry["_SYSTEMD_UNIT"]
        }
        if ledgers[instance] == nil {
            ledgers[instance] = InstanceLedger(id: instance, first: entry)
            order.append(instance)
        }
        if units[instance] == nil, let unit = entry["_SYSTEMD_UNIT"] { units[instance] = unit }
        ledgers[instance]!.apply(entry)
    }

    /// Counts `entry` as foreign, and describes it (`what`) if it is among the first few.
    private mutating func noteForeign(_ entry: AuditEntry, _ what: String) {
        foreign += 1
        if foreignExamples.count < Self.foreignExamplesShown {
            foreignExamples.append("_UID=\(entry["_UID"] ?? "?") _PID=\(entry["_PID"] ?? "?") \(what)")
        }
    }

    /// Why a note with journald's "Suppressed" `MESSAGE_ID` was not written by journald, if it was
    /// not. Anyone may send that `MESSAGE_ID`: only journald's own note counts, which journald
    /// logs as root through its own driver (`_TRANSPORT=driver`, `_UID=0`, fields no client can
    /// set). A forged note would excuse a leak as entries that may have been dropped.
    static func forgedNote(_ entry: AuditEntry) -> String? {
        guard entry["_TRANSPORT"] == "driver", entry["_UID"] == "0" else {
            return "sent with _TRANSPORT=\(entry["_TRANSPORT"] ?? "(none)"), not by journald itself (_TRANSPORT=driver, _UID=0); "
                + "it excuses nothing"
        }
        return nil
    }

    /// Why `entry`, which names `instance`, was not written by jobd, if it was not: a `_UID` other
    /// than root's, or a `_PID` or `_SYSTEMD_UNIT` other than `pid` and `unit`, those of the
    /// instance's `daemon.start`.
    static func foreignness(of entry: AuditEntry, instance: String, pid: String?, unit: String?) -> String? {
        if let uid = entry["_UID"], uid != "0" { return "written by uid \(uid), not by jobd (root)" }
        if let pid, let writer = entry["_PID"], writer != pid { return "written by pid \(writer), not by the instance's jobd (pid \(pid))" }
        if let unit, entry["_PID"] != nil, entry["_SYSTEMD_UNIT"] != unit {
            return "written from \(entry["_SYSTEMD_UNIT"] ?? "no unit"), not from the instance's unit \(unit)"
        }
        return nil
    }

    /// Judges everything folded in.
    /// - Parameter journalEnd: the last entry of the journal that was read, of any program (a
    ///   quiet jobd's time passes too); `nil` for the last entry consumed. Grace periods of an
    ///   instance without `daemon.exit` are measured to it, unless a later instance started after
    ///   this one's last entry or the journal ends in another boot: then this instance's process
    ///   was gone, and its own last entry is the last moment it vouches for.
    package func finish(journalEnd: JournalInstant? = nil) -> AuditReport {
        let end = journalEnd ?? last
        let graceUSec = Self.microseconds(leakGrace)
        let instances = order.map { id -> InstanceReport in
            let ledger = ledgers[id]!
            let superseded = order.contains { other in
                other != id && ledger.last.isBefore(ledgers[other]!.first)
            }
            var horizon = ledger.last
            if let end, !superseded, end.bootID == ledger.last.bootID, ledger.last.isBefore(end) { horizon = end }
            let gaps = suppressions.filter { $0.mayConcern(unit: units[id], first: ledger.first, last: horizon) }.map {
                "journald's rate limit dropped messages (its note at \(clock.describe($0.time)): \($0.message)): "
                    + "this instance's entries may be among them"
            }
            return ledger.report(horizon: horizon, graceUSec: graceUSec, clock: clock, gaps: gaps)
        }
        return AuditReport(
            leakGraceUSec: graceUSec, entries: entries, unattributedEntries: unattributed, journalEnd: end,
            instances: instances, foreignEntries: foreign, foreignExamples: foreignExamples)
    }

    /// Audits `entries` (oldest first) in one call.
    package static func audit(
        _ entries: some Sequence<AuditEntry>, journalEnd: JournalInstant? = nil,
        leakGrace: Duration = defaultLeakGrace, clock: AuditClock = AuditClock()
    ) -> AuditReport {
        var auditor = LifecycleAuditor(leakGrace: leakGrace, clock: clock)
        for entry in entries { auditor.consume(entry) }
        return auditor.finish(journalEnd: journalEnd)
    }

    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
    }
}

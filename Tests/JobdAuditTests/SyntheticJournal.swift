import JobdAudit
import JobdLogging

/// Builds jobd-shaped journal entries for one instance, in the order the daemon logs them, with a
/// clock the test advances by hand.
struct SyntheticJournal {
    static let bootID = String(repeating: "b", count: 32)
    let instance: String
    /// `_SYSTEMD_UNIT` of every jobd entry, when jobd runs as a unit.
    var unit: String?
    var nowUSec: UInt64
    var entries: [AuditEntry] = []

    init(instance: String = String(repeating: "a", count: 32), unit: String? = nil, startUSec: UInt64 = 1_700_000_000_000_000) {
        self.instance = instance
        self.unit = unit
        nowUSec = startUSec
    }

    var now: JournalInstant { JournalInstant(realtimeUSec: nowUSec, monotonicUSec: nowUSec, bootID: Self.bootID) }

    mutating func advance(seconds: Double) { nowUSec += UInt64(seconds * 1_000_000) }

    mutating func event(_ kind: String, _ fields: [String: String] = [:]) {
        var all = fields
        all["JOBD_EVENT"] = kind
        all["JOBD_INSTANCE"] = instance
        all["SYSLOG_IDENTIFIER"] = "jobd"
        if let unit { all["_SYSTEMD_UNIT"] = unit }
        entries.append(AuditEntry(all, realtimeUSec: nowUSec, bootID: Self.bootID))
        nowUSec += 1_000  // 1 ms between entries
    }

    /// journald's note that its rate limit dropped `count` messages of `unit`, as systemd 252 writes it.
    mutating func journaldDropped(_ count: Int, from unit: String) {
        entries.append(AuditEntry([
            "MESSAGE_ID": LifecycleAuditor.journalDroppedMessageID, "SYSLOG_IDENTIFIER": "systemd-journald",
            "MESSAGE": "Suppressed \(count) messages from \(unit)", "N_DROPPED": "\(count)", "OBJECT_SYSTEMD_UNIT": unit,
            "_TRANSPORT": "driver", "_UID": "0",
        ], realtimeUSec: nowUSec, bootID: Self.bootID))
        nowUSec += 1_000
    }

    static func timer(_ owner: Int) -> String { String(owner + 100) }

    mutating func start() { event("daemon.start") }

    mutating func ownerInit(_ job: String, owner: Int, generation: Int) {
        event("owner.init", ["JOB": job, "JOBD_OWNER": "\(owner)", "JOBD_GENERATION": "\(generation)", "JOBD_TIMER": Self.timer(owner)])
    }

    /// An owner of `created` carried into generation `into` (the field holds the new number).
    mutating func ownerRetain(_ job: String, owner: Int, into generation: Int) {
        event("owner.retain", ["JOB": job, "JOBD_OWNER": "\(owner)", "JOBD_GENERATION": "\(generation)", "JOBD_TIMER": Self.timer(owner)])
    }

    /// Owners carried into generation `into` as jobd logs them now: one entry naming them all as id
    /// ranges (`JOBD_OWNERS=1-3,5`).
    mutating func ownersRetain(_ ranges: String, count: Int, into generation: Int) {
        event("owner.retain", ["JOBD_OWNERS": ranges, "JOBD_OWNER_COUNT": "\(count)", "JOBD_GENERATION": "\(generation)"])
    }

    /// A deinit as jobd logs it: the timer's invalidation (unless already invalidated), then the deinit.
    mutating func ownerDeinit(_ job: String, owner: Int, generation: Int, invalidate: Bool = true) {
        if invalidate { timerInvalidate(job, owner: owner, reason: "owner-deinit") }
        event("owner.deinit", ["JOB": job, "JOBD_OWNER": "\(owner)", "JOBD_GENERATION": "\(generation)", "JOBD_TIMER": Self.timer(owner)])
    }

    mutating func timerInvalidate(_ job: String, owner: Int, reason: String) {
        event("timer.invalidate", ["JOB": job, "JOBD_OWNER": "\(owner)", "JOBD_TIMER": Self.timer(owner), "JOBD_REASON": reason])
    }

    /// Owners created in `generation` as jobd logs many at once: one `owners.init` naming them as id
    /// ranges, their jobs in the same order.
    mutating func ownersInit(_ owners: [(job: String, owner: Int)], generation: Int) {
        let sorted = owners.sorted { $0.owner < $1.owner }
        let ranges = OwnerIDRanges(sorted.map { UInt64($0.owner) })
        event("owners.init", [
            "JOBD_OWNERS": ranges.description, "JOBD_OWNER_COUNT": "\(ranges.count)", "JOBD_GENERATION": "\(generation)",
            "JOBD_JOBS": sorted.map(\.job).joined(separator: " "),
        ])
    }

    /// Owners released at once: one `owners.deinit`.
    mutating func ownersDeinit(_ owners: [Int]) {
        let ranges = OwnerIDRanges(owners.map(UInt64.init))
        event("owners.deinit", ["JOBD_OWNERS": ranges.description, "JOBD_OWNER_COUNT": "\(ranges.count)"])
    }

    /// Timers of owners invalidated at once: one `timers.invalidate`.
    mutating func timersInvalidate(_ owners: [Int], reason: String) {
        let ranges = OwnerIDRanges(owners.map(UInt64.init))
        event("timers.invalidate", ["JOBD_OWNERS": ranges.description, "JOBD_OWNER_COUNT": "\(ranges.count)", "JOBD_REASON": reason])
    }

    mutating func timerFire(_ job: String, owner: Int, generation: Int) {
        event("timer.fire", ["JOB": job, "JOBD_OWNER": "\(owner)", "JOBD_GENERATION": "\(generation)", "JOBD_TIMER": Self.timer(owner)])
    }

    mutating func load(_ generation: Int) { event("generation.load", ["JOBD_GENERATION": "\(generation)"]) }

    /// Start-up: daemon.start, an owner per job in generation 1, generation.load 1, daemon.ready.
    mutating func startUp(_ jobs: [(String, Int)]) {
        start()
        for (job, owner) in jobs { ownerInit(job, owner: owner, generation: 1) }
        load(1)
        event("daemon.ready", ["JOBD_GENERATION": "1"])
    }

    /// A clean stop: every timer invalidated (shutdown), generation.retire, every owner released, daemon.exit.
    mutating func cleanStop(generation: Int, owners: [(String, Int, Int)]) {
        event("daemon.stop")
        for (job, owner, _) in owners { timerInvalidate(job, owner: owner, reason: "shutdown") }
        event("generation.retire", ["JOBD_GENERATION": "\(generation)"])
        for (job, owner, created) in owners { ownerDeinit(job, owner: owner, generation: created, invalidate: false) }
        event("daemon.exit")
    }
}

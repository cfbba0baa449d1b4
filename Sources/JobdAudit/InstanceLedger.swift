import JobdLogging

/// Everything the journal says about one jobd instance, folded in entry by entry; at the end it
/// turns into an ``InstanceReport``.
struct InstanceLedger {
    /// A timer fire logged after its owner's deinit, not (yet) matched by the scheduler dropping it.
    struct LateFire {
        var owner: UInt64
        var job: String?
        var timer: UInt64?
        var fired: JournalInstant
        var released: JournalInstant
    }

    let id: String
    let first: JournalInstant
    let firstEvent: String?
    var last: JournalInstant
    var started: JournalInstant?
    var stopped: JournalInstant?
    var exited: JournalInstant?
    var reloads = 0
    var failedReloads = 0
    /// Entries jobd dropped while the journal took none (`log.dropped`).
    var droppedEntries = 0
    var currentGeneration: UInt64?
    var generations: [UInt64: GenerationLedger] = [:]
    var generationOrder: [UInt64] = []
    var owners: [UInt64: OwnerRecord] = [:]
    var ownerOrder: [UInt64] = []
    /// Owners neither released nor retired: the ones a generation.load, retire or exit may retire.
    /// Kept apart so that a reload costs O(live owners), not O(every owner ever seen).
    var unretired: Set<UInt64> = []
    var timers = TimerCounts()
    var invalidatedTimers: Set<UInt64> = []
    /// Owners whose timer was invalidated (`JOBD_OWNER` of `timer.invalidate`, `JOBD_OWNERS` of `timers.invalidate`).
    var invalidatedOwners: Set<UInt64> = []
    var lateFires: [LateFire] = []
    /// The longest `LeakGraceSec=` jobd logged in this instance (`JOBD_LEAK_GRACE_USEC`), if any:
    /// owners are judged by it rather than by the audit's default.
    var leakGraceUSec: UInt64?
    /// Entries with a field the audit judges by missing or unreadable; the first few kept.
    var malformedCount = 0
    var malformedExamples: [MalformedEntry] = []
    static let malformedExamplesKept = 5
    /// Fields that must be numbers wherever they appear.
    static let numericFields = [JobdField.owner, JobdField.generation, JobdField.timer, JobdField.leakGraceUSec]
    /// Compact entries (`owner.retain`, `owners.init`, `owners.deinit`, `timers.invalidate`) whose
    /// `JOBD_OWNERS` did not parse (or disagreed with `JOBD_OWNER_COUNT`): the owners they name are
    /// unknown, so the instance is incomplete.
    var unreadableCompactEntries = 0
    /// The most owners one compact entry is believed to name (jobd names one per job, and is
    /// measured at 20,000): a larger range, such as `1-2222222222`, is unreadable rather than
    /// expanded into billions of owners.
    static let maximumOwnersPerEntry = 1_000_000

    init(id: String, first entry: AuditEntry) {
        self.id = id
        first = entry.time
        firstEvent = entry[JobdField.event]
        last = entry.time
    }

    // MARK: Folding entries in

    mutating func apply(_ entry: AuditEntry) {
        let time = entry.time
        last = time
        guard let name = entry[JobdField.event], let event = JobdEvent(rawValue: name) else { return }
        checkReadable(entry, event)
        if let grace = entry[JobdField.leakGraceUSec].flatMap({ UInt64($0) }) {
            leakGraceUSec = max(leakGraceUSec ?? 0, grace)
        }
        let generation = entry[JobdField.generation].flatMap { UInt64($0) }
        let ownerID = entry[JobdField.owner].flatMap { UInt64($0) }
        switch event {
        case .daemonStart:
            if started == nil { started = time }
        case .daemonStop:
            if stopped == nil { stopped = time }
        case .daemonExit:
            exited = time
            retireAlive(at: time, by: "jobd's exit") { _ in true }
            endCurrentGeneration(at: time, .exited)
        case .reloadDone:
            reloads += 1
        case .reloadFailed:
            failedReloads += 1
        case .generationLoad:
            guard let generation else { return }
            // Owners the reload kept were retained (logged before the load); the others are retired.
            retireAlive(at: time, by: "the reload to generation \(generation)") { ($0.lastGeneration ?? 0) < generation }
            if currentGeneration != generation { endCurrentGeneration(at: time, .replaced) }
            self[generation: generation].loaded = time
            currentGeneration = generation
        case .generationRetire:
            retireAlive(at: time, by: "shutdown") { _ in true }
            if let number = generation ?? currentGeneration, generations[number]?.ending == nil {
                self[generation: number].ended = time
                self[generation: number].ending = .retired
            }
        case .ownerInit:
            guard let ownerID else { return }
            created(ownerID, in: generation, entry)
            if let generation { _ = self[generation: generation] }
        case .ownersInit:
            guard let ids = compactOwners(entry) else { return }
            let jobs = entry[JobdField.jobs]?.split(separator: " ", omittingEmptySubsequences: false) ?? []
            if jobs.count != ids.count { countMalformed(entry, event, field: JobdField.jobs) }
            for (index, id) in ids.enumerated() {
                created(id, in: generation, entry, job: jobs.count == ids.count ? String(jobs[index]) : nil)
            }
            if let generation { _ = self[generation: generation] }
        case .ownerRetain:
            // One entry per owner (jobd before compact retains), or one for all a reload kept.
            let kept: [UInt64]
            if let ownerID {
                kept = [ownerID]
            } else if let ids = compactOwners(entry) {
                kept = ids
            } else {
                return
            }
            for id in kept {
                retain(id, into: generation, entry)
            }
            if let generation { self[generation: generation].carriedIn += kept.count }
        case .ownerDeinit:
            guard let ownerID else { return }
            update(ownerID, entry) { owner in
                if owner.released == nil { owner.released = time }
            }
        case .ownersDeinit:
            for id in compactOwners(entry) ?? [] {
                update(id, entry) { owner in
                    if owner.released == nil { owner.released = time }
                }
            }
        case .ownerLateDeinit:
            guard let ownerID else { return }
            update(ownerID, entry) { owner in
                owner.lateDeinit = time
                if owner.released == nil { owner.released = time }
            }
        case .ownerLeak:
            guard let ownerID else { return }
            update(ownerID, entry) { owner in
                if owner.leakReported == nil { owner.leakReported = time }
                owner.leakReason = entry[JobdField.reason] ?? owner.leakReason
            }
        case .logDropped:
            droppedEntries += entry[JobdField.droppedCount].flatMap { Int($0) } ?? 1
        case .timerSchedule, .timerInvalidate, .timersInvalidate, .timerFire, .runSkip:
            applyTimerEvent(event, entry, ownerID: ownerID, at: time)
        default:
            break
        }
    }

    /// A timer's schedule, invalidation or fire, or the `run.skip` that drops a fire delivered after
    /// its owner's release.
    private mutating func applyTimerEvent(_ event: JobdEvent, _ entry: AuditEntry, ownerID: UInt64?, at time: JournalInstant) {
        switch event {
        case .timerSchedule:
            if let ownerID, ownerID != 0 { timers.scheduled = (timers.scheduled ?? 0) + 1 }
        case .timerInvalidate:
            guard let ownerID, ownerID != 0 else {
                timers.otherInvalidated += 1
                return
            }
            timers.invalidated += 1
            timers.invalidatedByReason[entry[JobdField.reason] ?? "unknown", default: 0] += 1
            if let timer = entry[JobdField.timer].flatMap({ UInt64($0) }) { invalidatedTimers.insert(timer) }
            invalidatedOwners.insert(ownerID)
        case .timersInvalidate:
            guard let ids = compactOwners(entry) else { return }
            timers.invalidated += ids.count
            timers.invalidatedByReason[entry[JobdField.reason] ?? "unknown", default: 0] += ids.count
            invalidatedOwners.formUnion(ids)
        case .timerFire:
            guard let ownerID, ownerID != 0 else { return }
            timers.fired += 1
            guard let released = owners[ownerID]?.released else { return }
            // The main loop logs a fire when it handles it; one delivered before a release can be
            // handled after it. During stop it is dropped unlogged; otherwise a run.skip must follow.
            if stopped != nil {
                timers.lateFiresDropped += 1
            } else {
                lateFires.append(LateFire(
                    owner: ownerID, job: entry[JobdField.job], timer: entry[JobdField.timer].flatMap { UInt64($0) },
                    fired: time, released: released))
            }
        case .runSkip:
            guard entry[JobdField.reason] == "owner-retired", let ownerID,
                  let index = lateFires.firstIndex(where: { $0.owner == ownerID }) else { return }
            lateFires.remove(at: index)
            timers.lateFiresDropped += 1
        default:
            break
        }
    }

    /// Counts `entry` as malformed if a numeric field is not a number, or a field its event needs
    /// is missing; the entry is still folded in as far as it can be read.
    private mutating func checkReadable(_ entry: AuditEntry, _ event: JobdEvent) {
        var required: [String] = []
        switch event {
        case .ownerInit, .ownerDeinit, .ownerLateDeinit, .ownerLeak: required = [JobdField.owner]
        // One owner (JOBD_OWNER), or all a reload kept (JOBD_OWNERS, read and checked on its own).
        case .ownerRetain: required = entry[JobdField.owners] == nil ? [JobdField.owner] : []
        // JOBD_OWNERS is read and checked on its own.
        case .ownersInit: required = [JobdField.owners, JobdField.generation]
        case .ownersDeinit, .timersInvalidate: required = [JobdField.owners]
        case .generationLoad: required = [JobdField.generation]
        default: break
        }
        let unreadable = Self.numericFields.first { field in entry[field].map { UInt64($0) == nil } ?? false }
            ?? required.first { entry[$0] == nil }
        guard let field = unreadable else { return }
        countMalformed(entry, event, field: field)
    }

    private mutating func countMalformed(_ entry: AuditEntry, _ event: JobdEvent, field: String) {
        malformedCount += 1
        if malformedExamples.count < Self.malformedExamplesKept {
            malformedExamples.append(MalformedEntry(
                realtimeUSec: entry.time.realtimeUSec, event: event.rawValue, field: field, value: entry[field]))
        }
    }

    /// The ledger of generation `number`, made on first use so that generations keep their order.
    private subscript(generation number: UInt64) -> GenerationLedger {
        mutating get {
            if let ledger = generations[number] { return ledger }
            generationOrder.append(number)
            generations[number] = GenerationLedger(number: number)
            return generations[number]!
        }
        set {
            if generations[number] == nil { generationOrder.append(number) }
            generations[number] = newValue
        }
    }

    /// The owners a compact entry names (`JOBD_OWNERS`), or `nil`, counted as unreadable, when
    /// the ranges do not parse, name too many owners or disagree with `JOBD_OWNER_COUNT`.
    private mutating func compactOwners(_ entry: AuditEntry) -> [UInt64]? {
        guard let text = entry[JobdField.owners] else { return nil }
        guard let ranges = OwnerIDRanges(text), ranges.count <= Self.maximumOwnersPerEntry,
            (entry[JobdField.ownerCount].flatMap { Int($0) } ?? ranges.count) == ranges.count
        else {
            unreadableCompactEntries += 1
            return nil
        }
        return Array(ranges.ids)
    }

    /// Owner `id` was created in `generation` (`owner.init`, or one of an `owners.init`'s, which names its `job`).
    private mutating func created(_ id: UInt64, in generation: UInt64?, _ entry: AuditEntry, job: String? = nil) {
        let time = entry.time
        update(id, entry) { owner in
            if owner.created == nil { owner.created = time }
            owner.createdGeneration = owner.createdGeneration ?? generation
            owner.lastGeneration = max(owner.lastGeneration ?? 0, generation ?? 0)
            if let job { owner.job = job }
        }
    }

    private mutating func retain(_ id: UInt64, into generation: UInt64?, _ entry: AuditEntry) {
        update(id, entry) { owner in
            owner.carriedOver = true
            if let generation { owner.lastGeneration = max(owner.lastGeneration ?? 0, generation) }
        }
    }

    /// `entry`'s job and timer describe owner `id` unless the entry names several owners.
    private mutating func update(_ id: UInt64, _ entry: AuditEntry, _ change: (inout OwnerRecord) -> Void) {
        let single = entry[JobdField.owners] == nil
        if owners[id] == nil {
            owners[id] = OwnerRecord(id: id, job: single ? entry[JobdField.job] ?? "?" : "?")
            ownerOrder.append(id)
        }
        if single, let job = entry[JobdField.job] { owners[id]!.job = job }
        if single, let timer = entry[JobdField.timer].flatMap({ UInt64($0) }) { owners[id]!.timer = timer }
        change(&owners[id]!)
        if owners[id]!.released == nil && owners[id]!.retired == nil {
            unretired.insert(id)
        } else {
            unretired.remove(id)
        }
    }

    private mutating func retireAlive(at time: JournalInstant, by cause: String, where predicate: (OwnerRecord) -> Bool) {
        for id in unretired where predicate(owners[id]!) {
            owners[id]!.retired = time
            owners[id]!.retiredBy = cause
            unretired.remove(id)
        }
    }

    private mutating func endCurrentGeneration(at time: JournalInstant, _ ending: GenerationReport.Ending) {
        guard let current = currentGeneration, generations[current]?.ending == nil else { return }
        self[generation: current].ended = time
        self[generation: current].ending = ending
    }
}

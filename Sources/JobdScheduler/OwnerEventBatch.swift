import JobdLocks
package import JobdLogging
package import JobdTimers
package import Logging

/// The owner and timer bookkeeping of the journal (`owner.init`, `owner.deinit`,
/// `timer.invalidate`), logged compactly when many owners come or go at once.
///
/// Start-up, shutdown and a reload that replaces many jobs create or release thousands of owners in
/// a moment: one entry each would be tens of thousands of entries in a second, over journald's rate
/// limit, which then drops jobd's entries for the rest of its window. So the scheduler runs such
/// steps inside ``collect(_:)``: every owner's `init`, `deinit` and timer invalidation that happens
/// meanwhile is recorded here by the owner itself (the release really happens and is what is
/// recorded), and at the end of the step logged as a few entries: `owners.init` (owner ids as
/// ranges, with their jobs), `timers.invalidate` (per reason) and `owners.deinit`, in pieces so
/// that no entry is huge. Up to ``perOwnerLimit`` of a kind are logged one entry each, as outside a
/// collection; an owner released after the step (held elsewhere for a while) logs its own entry.
///
/// Shared by the scheduler, its owners and the timer queue's ``TimerEventLog``, which may call it
/// from any thread.
package final class OwnerEventBatch: Sendable {
    /// One owner (or its timer) as its bookkeeping entries name it.
    package struct Note: Sendable, Hashable {
        package var owner: UInt64
        package var job: String
        /// The generation that created the owner; timer invalidations do not name it.
        package var generation: UInt64?
        package var timer: UInt64

        package init(owner: UInt64, job: String, generation: UInt64?, timer: UInt64) {
            self.owner = owner
            self.job = job
            self.generation = generation
            self.timer = timer
        }
    }

    /// What one collection recorded, in the order it happened.
    private struct Collected: Sendable {
        var inits: [Note] = []
        var invalidations: [InvalidationReason: [Note]] = [:]
        var deinits: [Note] = []
    }

    /// Most owners one compact entry names; each entry's `JOBD_OWNERS` holds at most as many ranges.
    package static let maxOwnersPerEntry = 1_000
    /// Most characters of one `owners.init`'s `JOBD_JOBS` (job names have at most 200).
    package static let maxJobsTextPerEntry = 16_384

    /// Up to this many owners of one kind (created, released, timers invalidated for one reason) in
    /// one collection are logged one entry each; more are logged compactly.
    package let perOwnerLimit: Int
    private let logger: Logger
    /// `nil` outside a collection.
    private let collected = LockedBox<Collected?>(nil)

    package init(logger: Logger, perOwnerLimit: Int = 32) {
        self.logger = logger
        self.perOwnerLimit = perOwnerLimit
    }

    /// Runs `body`, which creates or lets go of many owners, and logs their bookkeeping when it
    /// returns. Every owner `body` lets go of is released by then unless something else holds it:
    /// `body`'s locals end with it. A collection inside another is part of the outer one.
    package func collect<Result>(_ body: () throws -> Result) rethrows -> Result {
        let outermost = collected.withLock { collected in
            guard collected == nil else { return false }
            collected = Collected()
            return true
        }
        guard outermost else { return try body() }
        defer { flush() }
        return try body()
    }

    /// An owner was created.
    package func created(_ note: Note) {
        if !record({ $0.inits.append(note) }) { logInit(note) }
    }

    /// An owner was released (from its `deinit`).
    package func released(_ note: Note) {
        if !record({ $0.deinits.append(note) }) { logDeinit(note) }
    }

    /// A timer was invalidated; `note.owner` is its tag, 0 for timers of no job owner (always logged at once).
    package func invalidated(_ note: Note, reason: InvalidationReason) {
        if note.owner == 0 || !record({ $0.invalidations[reason, default: []].append(note) }) {
            logInvalidation(note, reason: reason)
        }
    }

    /// Records into the running collection; `false` when there is none.
    private func record(_ change: (inout Collected) -> Void) -> Bool {
        collected.withLock { collected in
            guard collected != nil else { return false }
            change(&collected!)
            return true
        }
    }

    private func flush() {
        guard let done = collected.withLock({ collected in
            defer { collected = nil }
            return collected
        }), logger.logLevel <= .debug else { return }
        if done.inits.count <= perOwnerLimit {
            done.inits.forEach(logInit)
        } else {
            // One generation (a start, a reload) needs no copy grouped by generation.
            let generations = done.inits.allSatisfy { $0.generation == done.inits[0].generation }
                ? [done.inits[0].generation ?? 0: done.inits] : Dictionary(grouping: done.inits) { $0.generation ?? 0 }
            for (generation, notes) in generations.sorted(by: { $0.key < $1.key }) {
                for piece in Self.pieces(notes) {
                    logCompact(.ownersInit, piece.owners, "owner(s) created in generation \(generation)", [
                        JobdField.generation: String(generation), JobdField.jobs: piece.jobs,
                    ])
                }
            }
        }
        for reason in InvalidationReason.allCases {
            guard let notes = done.invalidations[reason] else { continue }
            if notes.count <= perOwnerLimit {
                notes.forEach { logInvalidation($0, reason: reason) }
            } else {
                let ranges = OwnerIDRanges(notes.map(\.owner))
                for piece in ranges.chunked(maxRanges: Self.maxOwnersPerEntry) {
                    logCompact(.timersInvalidate, piece, "job timer(s) invalidated: \(reason)", [JobdField.reason: reason.rawValue])
                }
            }
        }
        if done.deinits.count <= perOwnerLimit {
            done.deinits.forEach(logDeinit)
        } else {
            for piece in OwnerIDRanges(done.deinits.map(\.owner)).chunked(maxRanges: Self.maxOwnersPerEntry) {
                logCompact(.ownersDeinit, piece, "owner(s) released", [:])
            }
        }
    }

    /// `notes` in ascending order of owner id, in pieces of at most ``maxOwnersPerEntry`` owners
    /// whose jobs, joined by spaces, take at most ``maxJobsTextPerEntry`` characters (one at least).
    package static func pieces(_ notes: [Note]) -> [(owners: OwnerIDRanges, jobs: String)] {
        var pieces: [(owners: OwnerIDRanges, jobs: String)] = []
        var owners: [UInt64] = []
        var jobs = ""
        func close() {
            guard !owners.isEmpty else { return }
            pieces.append((OwnerIDRanges(owners), jobs))
            owners = []
            jobs = ""
        }
        // Owners are recorded as they are created, in ascending order: sorted only if they are not.
        let inOrder = zip(notes, notes.dropFirst()).allSatisfy { $0.owner < $1.owner }
        for note in inOrder ? notes : notes.sorted(by: { $0.owner < $1.owner }) {
            if owners.count == maxOwnersPerEntry || (!owners.isEmpty && jobs.utf8.count + 1 + note.job.utf8.count > maxJobsTextPerEntry) {
                close()
            }
            if !owners.isEmpty { jobs += " " }
            jobs += note.job
            owners.append(note.owner)
        }
        close()
        return pieces
    }

    // MARK: The entries

    private func logCompact(_ kind: JobdEvent, _ owners: OwnerIDRanges, _ what: String, _ extra: [String: String]) {
        let count = owners.count
        var fields = extra
        fields[JobdField.owners] = owners.description
        fields[JobdField.ownerCount] = String(count)
        logger.event(kind, level: .debug, "\(count) \(what)", fields)
    }

    private func logInit(_ note: Note) {
        logger.event(.ownerInit, level: .debug,
                     "owner \(note.owner) of \(note.job) created in generation \(note.generation ?? 0)", fields(note))
    }

    private func logDeinit(_ note: Note) {
        logger.event(.ownerDeinit, level: .debug, "owner \(note.owner) of \(note.job) released", fields(note))
    }

    private func logInvalidation(_ note: Note, reason: InvalidationReason) {
        var fields = fields(note)
        fields[JobdField.reason] = reason.rawValue
        logger.event(.timerInvalidate, level: .debug, "timer \(note.timer) of \(note.job) invalidated: \(reason)", fields)
    }

    private func fields(_ note: Note) -> [String: String] {
        var fields = [JobdField.job: note.job, JobdField.owner: String(note.owner), JobdField.timer: String(note.timer)]
        if let generation = note.generation { fields[JobdField.generation] = String(generation) }
        return fields
    }
}

package import JobdConfig
import JobdLogging
package import JobdTimers
import Logging
import Synchronization

/// A job that fell due: what the timing thread tells the daemon's main loop.
package struct DueJob: Sendable {
    package var job: String
    package var ownerID: UInt64
    package var generation: UInt64
    package var timerID: UInt64
    package var at: MonotonicInstant
}

/// The one object that owns a job's schedule in one configuration generation.
///
/// It holds its timer; the timer holds it weakly. When the generation that made it lets it go (a
/// reload that changes or removes the job, or shutdown), nothing else holds it, so its `deinit`
/// runs at once: it invalidates the timer and records its release (`owner.deinit`, or part of an
/// `owners.deinit` when many go at once: ``OwnerEventBatch``). A run in flight holds the job's
/// definition, never the owner, so a long run cannot keep an owner alive past a reload.
package final class JobOwner: TimerTarget {
    private static let nextID = Atomic<UInt64>(1)
    private static let live = Atomic<Int>(0)

    /// Owners alive in this process right now, in any generation: created and not yet deinitialized.
    package static var liveCount: Int { live.load(ordering: .relaxed) }

    package let id: UInt64
    package let definition: JobDefinition
    /// The generation that created it; a reload that keeps it does not change this.
    package let generation: UInt64
    package let timer: WeakTimer
    private let context: Context

    /// What every owner of one scheduler shares: one reference in each owner rather than three
    /// words (issue 19: an owner is then a 64-byte allocation, not 80).
    package final class Context: Sendable {
        let queue: TimerQueue
        let events: OwnerEventBatch
        let onDue: @Sendable (DueJob) -> Void

        package init(queue: TimerQueue, events: OwnerEventBatch, onDue: @escaping @Sendable (DueJob) -> Void) {
            self.queue = queue
            self.events = events
            self.onDue = onDue
        }
    }

    package init(definition: JobDefinition, generation: UInt64, context: Context) {
        id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.definition = definition
        self.generation = generation
        self.context = context
        // Bound at its first arm, which the scheduler makes right away: one lock for both.
        timer = context.queue.makeTimer(label: definition.name, tag: id)
        Self.live.add(1, ordering: .relaxed)
        context.events.created(note)
    }

    deinit {
        Self.live.subtract(1, ordering: .relaxed)
        timer.invalidate(reason: .ownerDeinit)
        context.events.released(note)
    }

    package var name: String { definition.name }

    /// What identifies this owner in the journal.
    package var note: OwnerEventBatch.Note {
        OwnerEventBatch.Note(owner: id, job: definition.name, generation: generation, timer: timer.id)
    }

    /// Arms the timer for `deadline`, or disarms it for `nil` (the job has nothing due), with this
    /// owner as its target.
    package func arm(at deadline: MonotonicInstant?) {
        timer.bind(to: self, andScheduleAt: deadline)
    }

    /// Invalidates the timer at a known point of the lifecycle (shutdown), before the owner is let go:
    /// cleanup that does not depend on `deinit` running.
    package func retire(reason: InvalidationReason) {
        timer.invalidate(reason: reason)
    }

    package func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {
        context.onDue(DueJob(job: definition.name, ownerID: id, generation: generation, timerID: timer.id, at: now))
    }
}

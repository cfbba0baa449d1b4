package import JobdCalendar
import JobdConfig

/// What a reload would do to one job (`jobctl reload --dry-run`): the diff of the running
/// generation and the one a read of the configuration makes, with the next elapse before and
/// after, worked out with the rules ``Scheduler/load(_:active:now:)`` applies: a new schedule
/// counts from the reload, a changed key that is not a trigger leaves the schedule where it was,
/// and a `Persistent=` job takes its stored trigger. Values in, rows out; nothing is applied.
package struct ConfigurationChange: Sendable, Equatable {
    package enum Kind: String, Sendable, Equatable {
        case added, changed, removed
    }

    package var job: String
    package var kind: Kind
    /// The keys a changed job's file changed (``JobDefinition/changedKeys(from:)``).
    package var keys: [String] = []
    /// The next elapse as jobd has it now (none for an added job), and as it would after the reload.
    package var nextBefore: SchedulePlan.Elapse?
    package var nextAfter: SchedulePlan.Elapse?

    /// Whether the reload would make the job fall due at once, and why (``SchedulePlan/Reason``).
    package var runsAtOnce: SchedulePlan.Reason? {
        guard let reason = nextAfter?.reason, reason != .scheduled else { return nil }
        return reason
    }

    /// Every job `new` adds, changes or removes against `old`, in job name order. `histories`
    /// are jobd's, `storedTrigger` the last trigger the state directory keeps of a `Persistent=`
    /// job, `active` the jobs with a run in flight or waiting; `present.wallClock` is the reload's moment.
    package static func changes(
        from old: Generation, to new: Generation, histories: JobHistories, active: Set<String> = [],
        storedTrigger: (String) -> RealtimeInstant? = { _ in nil }, present: SchedulePlan.Present
    ) -> [ConfigurationChange] {
        func next(_ definition: JobDefinition, _ history: JobHistory) -> SchedulePlan.Elapse? {
            let job = SchedulePlan.Job(definition, history: history, running: active.contains(definition.name))
            return SchedulePlan.elapses(of: job, present: present, until: RealtimeInstant(microseconds: .max), limit: 1).first
        }
        var changes: [ConfigurationChange] = []
        for definition in new.jobs {
            let name = definition.name
            let before = old.definition(of: name)
            if let before, before == definition { continue }
            var history = histories[name] ?? JobHistory()
            // As Scheduler.replaceGeneration: a new schedule counts from the reload.
            if before.map({ $0.triggers != definition.triggers }) ?? true {
                history.scheduledSince = present.wallClock.monotonic
                history.scheduledSinceRealtime = present.wallClock.realtime
            }
            if definition.persistent, history.lastTriggerRealtime == nil { history.lastTriggerRealtime = storedTrigger(name) }
            let after = next(definition, history)
            if let before {
                changes.append(ConfigurationChange(
                    job: name, kind: .changed, keys: definition.changedKeys(from: before),
                    nextBefore: next(before, histories[name] ?? JobHistory()), nextAfter: after))
            } else {
                changes.append(ConfigurationChange(job: name, kind: .added, nextAfter: after))
            }
        }
        for definition in old.jobs where new.definition(of: definition.name) == nil {
            changes.append(ConfigurationChange(
                job: definition.name, kind: .removed, nextBefore: next(definition, histories[definition.name] ?? JobHistory())))
        }
        return changes.sorted { $0.job < $1.job }
    }
}

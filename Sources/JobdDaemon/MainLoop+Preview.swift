import JobdCalendar
import JobdConfig
import JobdRunner
import JobdControl
import JobdScheduler

extension MainLoop {
    /// The most elapses one `plan` answers with.
    static let planLimit = 10_000

    /// `plan`: the running schedule simulated from jobd's own histories (``SchedulePlan``), so that
    /// it shows what this jobd will do, not what a fresh start would.
    func answerPlan(_ request: ControlRequest, reply: ControlReply) {
        let names = request.jobs ?? scheduler.generation.owners.keys.sorted()
        let active = admission.activeJobs
        var jobs: [SchedulePlan.Job] = []
        for name in names {
            guard let job = scheduler.plannedJob(name, running: active.contains(name)) else {
                let broken = generation.broken[name] != nil ? ": its job file has errors (jobctl check)" : ""
                return reply.finish(with: .error("no such job: \(name)\(broken)"))
            }
            jobs.append(job)
        }
        let present = scheduler.present
        let from = request.fromUSec.map(RealtimeInstant.init(microseconds:)) ?? present.wallClock.realtime
        let until = RealtimeInstant(microseconds: request.untilUSec ?? .max)
        let limit = min(max(request.limit ?? Self.planLimit, 1), Self.planLimit)
        let plan = SchedulePlan.plan(jobs, present: present, from: from, until: until, limit: limit)
        var schedule = SchedulePreview(nowUSec: present.wallClock.realtime.microseconds, elapses: plan.elapses.map(wire))
        schedule.incomplete = plan.incomplete ? true : nil
        reply.finish(with: ControlResponse(type: .plan, schedule: schedule))
    }

    /// `reload-preview`: what applying `configuration` would do, worked out as ``finishReload`` would
    /// apply it, with nothing applied: the generation, the owners, the histories and the reload
    /// count stay as they are.
    func reloadPreview(of configuration: JobdConfiguration) -> SchedulePreview {
        let configuration = context.launcher.tracking.applicable(configuration, own: context.launcher.host.ownLimits)
        let present = scheduler.present
        var preview = SchedulePreview(nowUSec: present.wallClock.realtime.microseconds)
        if let fatal = configuration.fatal {
            preview.accepted = false
            preview.errors = [fatal.description]
            return preview
        }
        let next = Generation(configuration, after: generation)
        let changes = ConfigurationChange.changes(
            from: generation, to: next, histories: scheduler.histories, active: admission.activeJobs,
            storedTrigger: scheduler.storedTrigger(of:), present: present)
        preview.changes = changes.map { change in
            SchedulePreview.Change(job: change.job, kind: change.kind.rawValue, keys: change.keys,
                                   before: change.nextBefore.map(wire), after: change.nextAfter.map(wire))
        }
        preview.kept = next.jobs.count - changes.filter { $0.kind != .removed }.count
        // As ReloadMachine.applied: only root's errors make a reload fail; a user's break that job alone.
        preview.accepted = !configuration.errorOwners.contains { $0 == nil }
        preview.errors = configuration.errors.map(\.description)
        return preview
    }

    /// An elapse as the protocol carries it: a disabled job's is skipped when it comes.
    private func wire(_ elapse: SchedulePlan.Elapse) -> SchedulePreview.Elapse {
        let definition = scheduler.generation.owners[elapse.job]?.definition
        return SchedulePreview.Elapse(
            job: elapse.job, earliestUSec: elapse.earliest.microseconds, latestUSec: elapse.latest.microseconds,
            trigger: elapse.trigger, reason: admission.disabled.contains(elapse.job) ? "disabled" : elapse.reason.rawValue,
            retries: definition.flatMap { SchedulePlan.retries($0.restart) })
    }
}

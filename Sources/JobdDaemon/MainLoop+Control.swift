import Glibc
import JobdCalendar
import JobdConfig
import JobdControl
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
import SystemdKit

extension MainLoop {
    /// Answers a control request. Queries are answered from the loop's own state; `run` and
    /// `watch-reload` keep the reply until what they wait for happens.
    func handleControl(_ request: ControlRequest, reply: ControlReply) {
        guard !stopping else {
            reply.finish(with: .error("jobd is stopping"))
            return
        }
        switch request.command {
        case .status:
            if let name = request.job {
                guard let job = jobStatus(name, for: reply.peer) else {
                    reply.finish(with: .error("no such job: \(name)"))
                    return
                }
                reply.finish(with: ControlResponse(type: .job, jobStatus: job))
            } else {
                reply.finish(with: ControlResponse(type: .status, daemon: daemonStatus(for: reply.peer)))
            }
        case .list:
            let listing = JobListing(self, brief: request.brief == true, peer: reply.peer)
            reply.finish { listing.jsonLine() }
        case .run:
            guard let name = request.job else {
                reply.finish(with: .error("run needs a job"))
                return
            }
            guard admission.definition(of: name) != nil else {
                let why = broken[name].map { ": its file has errors (\($0.errors[0].description))" } ?? ""
                reply.finish(with: .error("no such job: \(name)\(why)"))
                return
            }
            let (run, actions) = admission.manualRun(job: name, now: now)
            let started = actions.contains(.start(run))
            let queued = actions.contains { if case .wait(let waiting, _) = $0 { waiting == run } else { false } }
            let skipped = actions.lazy.compactMap { if case .skip(let skip, let reason) = $0, skip == run { reason } else { nil } }.first
            if request.wait == true, started || queued {
                // Registered before the run starts (perform below), so that no line is missed.
                runWaiters.add(runID: run.runID, reply: reply, follows: request.followRetries == true, streams: request.streamsOutput)
            }
            perform(actions)
            if let skipped {
                reply.finish(with: ControlResponse(type: .runSkipped, run: RunReport(job: name, skipReason: skipped)))
                return
            }
            reply.send(ControlResponse(type: started ? .runStarted : .runQueued, run: RunReport(job: name, runID: run.runID)))
            if request.wait != true { reply.finish() }
        case .stop:
            guard let name = request.job else { return reply.finish(with: .error("stop needs a job")) }
            let inFlight = admission.runsInFlight(of: name).count
            guard admission.definition(of: name) != nil || inFlight > 0 else {
                return reply.finish(with: .error("no such job: \(name)"))
            }
            perform(admission.stop(job: name))
            reply.send(ControlResponse(type: .stopRequested, message: inFlight == 0
                ? "\(name) has no run in flight" : "\(inFlight) run(s) of \(name) asked to stop"))
            if request.wait == true, inFlight > 0 {
                stopWaiters[name, default: []].append(reply)
            } else {
                reply.finish()
            }
        case .disable, .enable:
            guard let name = request.job else { return reply.finish(with: .error("\(request.command.rawValue) needs a job")) }
            guard admission.definition(of: name) != nil else { return reply.finish(with: .error("no such job: \(name)")) }
            let disable = request.command == .disable
            perform(admission.setDisabled(name, disable))
            context.store.setDisabled(name, disable)
            logger.event(disable ? .jobDisable : .jobEnable, level: .notice,
                         "\(name) \(disable ? "disabled: its triggers start no runs" : "enabled: its triggers start runs again")",
                         [JobdField.job: name])
            notifier.send(.status(status))
            reply.finish(with: ControlResponse(type: disable ? .jobDisabled : .jobEnabled, jobStatus: jobStatus(name)))
        case .watchReload:
            reply.send(ControlResponse(type: .reloadSubscribed, reload: lastReload ?? ReloadReport(
                sequence: reloadSequence, accepted: true, generation: scheduler.generation.number)))
            watchReload(reply)
        }
    }

    /// jobd's status; for a reader, the errors of files it could not read itself are not shown,
    /// in the broken files or the last reload's errors (they quote the files' lines).
    func daemonStatus(for peer: ControlPeer? = nil) -> DaemonStatus {
        var status = DaemonStatus(
            pid: getpid(), instance: options.instance, generation: scheduler.generation.number,
            startedRealtimeUSec: startedRealtimeUSec, jobs: scheduler.generation.owners.count,
            liveOwners: JobOwner.liveCount, liveTimers: scheduler.queue.statistics.liveTimers,
            armedTimers: scheduler.queue.armedCount, runningJobs: admission.running, lastReload: lastReload,
            retiredOwnersAlive: scheduler.leakDetector?.retiredAlive ?? 0, leakedOwners: scheduler.leakDetector?.leaked ?? 0)
        let shown = { (error: ConfigError) in
            peer.map { $0.mayRead(error.file) } ?? true
                ? error.description : "\(error.file): error: not shown (you cannot read the file; jobctl check as root shows it)"
        }
        let brokenFiles = settingsErrors.prefix(1).map(shown) + broken.values.sorted { $0.name < $1.name }.map { shown($0.errors[0]) }
        status.brokenFiles = brokenFiles.isEmpty ? nil : brokenFiles
        if let peer, peer.level != .full, var reload = status.lastReload {
            // The report keeps only the errors' text: a reader sees their count.
            if !reload.errors.isEmpty { reload.errors = ["\(reload.errors.count) error(s): see the broken files above"] }
            status.lastReload = reload
        }
        return status
    }

    func jobStatus(_ name: String, for peer: ControlPeer? = nil) -> JobStatus? {
        let sources = StatusSources(self)
        let owner = scheduler.generation.owners[name].map { OwnerFacts($0, wallClock: sources.wallClock) }
        return sources.status(of: name, owner: owner, triggerTexts: TriggerTexts(), for: peer)
    }

    /// What a status needs of a job's owner, read on the loop: the owner itself stays there (its
    /// timer's deadline changes on the loop, and only the loop may let it go, since its `deinit`
    /// invalidates the timer and logs the release), so statuses can be made on other threads.
    struct OwnerFacts: Sendable {
        let definition: JobDefinition
        let id: UInt64
        let generation: UInt64
        /// The next elapse, wall-clock.
        let next: Int64?

        init(_ owner: JobOwner, wallClock: (MonotonicInstant) -> Int64) {
            definition = owner.definition
            id = owner.id
            generation = owner.generation
            next = owner.timer.deadline.map(wallClock)
        }
    }

    /// A `list` reply: every job and every job file with errors, by next elapse, then by name.
    ///
    /// Taken from the loop at once: the sources (copies of its tables) and what each owner says
    /// (``OwnerFacts``). Sorting, making the statuses and writing them as JSON then happen
    /// on the thread that serves the client, in parts on every core: at 10,000 jobs, making the
    /// reply on the loop kept it busy for about 25 ms, and timers that fell due meanwhile waited
    /// (issue 19).
    struct JobListing: Sendable {
        let sources: StatusSources
        let jobs: [(name: String, owner: OwnerFacts?)]
        /// Without what a brief `list` leaves out (``ControlRequest/brief``).
        let brief: Bool
        /// Who asked: a reader sees only what it could read itself.
        let peer: ControlPeer?

        init(_ loop: MainLoop, brief: Bool, peer: ControlPeer?) {
            self.brief = brief
            self.peer = peer
            let sources = StatusSources(loop)
            let owners = loop.scheduler.generation.owners
            // Room for all at once: growing the array copies (and retains) every entry.
            var jobs: [(name: String, owner: OwnerFacts?)] = []
            jobs.reserveCapacity(owners.count + sources.broken.count)
            for (name, owner) in owners { jobs.append((name: name, owner: OwnerFacts(owner, wallClock: sources.wallClock))) }
            for name in sources.broken.keys where owners[name] == nil { jobs.append((name: name, owner: nil)) }
            self.sources = sources
            self.jobs = jobs
        }

        /// The jobs' positions in ``jobs`` by next elapse (none last), then by name: positions are
        /// sorted, not entries, which would be copied (and their strings retained) as they move.
        var order: [Int] {
            jobs.indices.sorted { left, right in
                let leftNext = jobs[left].owner?.next ?? .max, rightNext = jobs[right].owner?.next ?? .max
                return leftNext != rightNext ? leftNext < rightNext : jobs[left].name < jobs[right].name
            }
        }

        /// Jobs to a part: each part is written on its own, the parts spread over the cores (on the
        /// caller's thread alone when there is one), each core's with one ``TriggerTexts``.
        static let jobsPerPart = 500

        /// The reply's line: the same bytes as `ControlResponse(type: .list, jobs:).jsonLine`.
        func jsonLine() -> [UInt8] {
            let order = self.order
            let parts = stride(from: 0, to: order.count, by: Self.jobsPerPart).map { $0..<min($0 + Self.jobsPerPart, order.count) }
            let written = parts.concurrentMap(minimumChunk: 1, chunkState: { TriggerTexts() }) { triggerTexts, part in
                var writer = JSONWriter(capacity: part.count * 320)
                writer.beginElements()
                for index in part {
                    let job = order[index]
                    sources.status(of: jobs[job].name, owner: jobs[job].owner, triggerTexts: triggerTexts, brief: brief, for: peer)?
                        .write(to: &writer, brief: brief)
                }
                writer.endElements()
                return writer.bytes
            }
            return ControlResponse.listLine(jobParts: written)
        }
    }

    /// The text of each trigger list, made once per reply for every job that shares the list. Jobs
    /// that write the same trigger share one list (the read's `TriggerInterner`), and making the
    /// texts again for each was a third of jobd's time for a list of 10,000 jobs (issue 19). A list
    /// is known by its storage's address: every definition holding it is held by the reply's
    /// sources while the reply is made, so no other list can take that address meanwhile.
    final class TriggerTexts {
        private var texts: [UnsafeRawPointer: [String]] = [:]

        func texts(of triggers: [Trigger]) -> [String] {
            guard let key = triggers.withUnsafeBufferPointer({ $0.baseAddress.map(UnsafeRawPointer.init) }) else { return [] }
            if let known = texts[key] { return known }
            let made = triggers.map(\.description)
            texts[key] = made
            return made
        }
    }

    /// What a job's status is made of, read from the loop once for all the jobs of a list: each
    /// read of the loop's state for each job cost more than making the status (issue 19). One
    /// wall-clock reading for all, so that jobs due at the same instant show the same time. The
    /// tables are copies (copy-on-write: taken at once) and hold no owner, so statuses can be made
    /// on other threads.
    struct StatusSources: Sendable {
        let histories: [String: JobHistory]
        let broken: [String: JobdConfiguration.BrokenJob]
        let admission: RunAdmission
        let lastNodes: [String: String]
        let launcher: any RunLauncher
        let wallClock: @Sendable (MonotonicInstant) -> Int64

        init(_ loop: MainLoop) {
            histories = loop.scheduler.histories
            broken = loop.broken
            admission = loop.admission
            lastNodes = loop.fleetLastNode
            launcher = loop.context.launcher
            let wallNow = loop.wallNowUSec, monotonicNow = loop.now
            wallClock = { wallNow + $0.duration(since: monotonicNow).nanosecondsSaturated / 1_000 }
        }

        /// The status of `name`, whose owner (if it has one) says `owner`; `brief`, without its
        /// file, command, description and runs in flight (empty or `nil`).
        func status(
            of name: String, owner: OwnerFacts?, triggerTexts: TriggerTexts, brief: Bool = false, for peer: ControlPeer? = nil
        ) -> JobStatus? {
            let broken = self.broken[name]
            guard owner != nil || broken != nil else { return nil }
            // A reader sees a job's command, description and errors (which quote the file's lines)
            // only if it could read the job file itself: a 0600 file stays private.
            let hidden = peer.map { !$0.mayRead(owner?.definition.path ?? broken?.path ?? "") } ?? false
            let history = histories[name] ?? JobHistory()
            let definition = owner?.definition
            let inFlight = admission.runsInFlight(of: name)
            var status = JobStatus(
                name: name, file: brief ? "" : definition?.path ?? broken?.path ?? "", description: brief ? nil : definition?.description,
                command: brief ? "" : definition?.command.text ?? "", triggers: definition.map { triggerTexts.texts(of: $0.triggers) } ?? [],
                nextElapseUSec: owner?.next,
                lastTriggerUSec: history.lastTrigger.map(wallClock),
                // The wall clock's times as they were read, which is also all a history an earlier
                // jobd kept has: the same before a restart and after it.
                lastStartUSec: history.lastStartRealtime?.microseconds ?? history.lastStart.map(wallClock),
                lastFinishUSec: history.lastFinishRealtime?.microseconds ?? history.lastFinish.map(wallClock),
                lastOutcome: history.lastRun?.outcome, running: inFlight.count,
                owner: owner?.id ?? 0, generation: owner?.generation ?? 0)
            status.lastResult = history.lastRun?.result.rawValue
            status.lastExitStatus = history.lastRun?.exitStatus
            status.lastDurationUSec = history.lastRun?.duration.microseconds
            status.lastRunID = history.lastRun?.invocationID
            status.lastStartCause = history.lastStartCause
            status.lastNode = lastNodes[name]
            let runs = brief ? [] : inFlight.map { run in
                JobStatus.RunInFlight(
                    runID: run.request.runID, invocationID: run.request.invocationID,
                    pid: launcher.pid(of: run.request.runID), startedUSec: wallClock(run.startedAt),
                    cause: run.request.cause.rawValue)
            }
            status.runs = runs.isEmpty ? nil : runs
            status.retryUSec = admission.pendingRetry(of: name).map { wallClock($0.at) }
            status.errors = broken?.errors.map(\.description)
            if hidden {
                let file = owner?.definition.path ?? broken?.path ?? name
                if !brief { status.command = "(not shown: you cannot read \(file))" }
                status.description = nil
                if status.errors != nil {
                    status.errors = ["\(file): error: the file has errors (not shown: you cannot read it; jobctl check as root shows them)"]
                }
            }
            status.disabled = admission.disabled.contains(name) ? true : nil
            return status
        }
    }
}

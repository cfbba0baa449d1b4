import Glibc
package import JobdCalendar
import JobdConfig
package import JobdHandover
import JobdLogging
package import JobdRunner
package import JobdScheduler
package import Logging
import JobdLocks

/// jobd's state directory (`--state-dir`, default `$STATE_DIRECTORY` or `/var/lib/jobd`):
/// `timestamps/JOB` holds a `Persistent=` job's last trigger (wall-clock microseconds), and
/// `boot-id` the boot in which jobd last started, for `Cron=@reboot`. And, in the runtime
/// directory (`/run/jobd`, kept across a restart), `runs/JOBD_RUN_ID` each run in flight
/// (``RunInFlightRecord``), so that the next jobd accounts for the runs of one that stopped without
/// a word. Every replacement is atomic (a temporary file renamed over the old one), so a crash
/// never leaves half a stamp; a run's record, new each run, is made in place (an empty one is none).
///
/// jobd runs as root: the directories must be its own and writable by no one else (checked once;
/// otherwise nothing is kept, and jobd says so), files are written through ``AtomicFile``, and no
/// file is opened through a link.
package final class StateDirectory: TriggerStore {
    package let path: String
    /// Where the runs in flight are kept: `runs/` of the runtime directory.
    private let runsPath: String
    private let logger: Logger
    private let reportedFailure = LockedBox(false)
    /// Why the directory is not used, if it is not.
    private let unusable: String?
    private let historyWriter: CoalescingWriter<JobHistory.Saved>
    /// `Persistent=` stamps, written as the histories are: off the main loop.
    private let stampWriter: CoalescingWriter<String>
    /// Runs in flight: a run that ends before the writer's queue reached its start writes no record
    /// (its removal finds none).
    private let runWriter: CoalescingWriter<String>
    /// The runs whose records are not simply on disk, under one lock (one lock a run's end).
    private struct PendingRecords {
        /// The record of each run whose process has not started yet, which its process completes
        /// (``runSpawned(_:)``); a run's record leaves it then, so that it costs nothing while the run runs.
        var awaitingProcess: [String: RunInFlightRecord] = [:]
        /// The runs whose record went to ``runWriter`` (a fleet run's, an adopted run's): their removal
        /// follows it there. Every other record is made and removed where the run starts and ends.
        var queued: Set<String> = []
    }
    private let pending = LockedBox(PendingRecords())

    /// `runtimeDirectory`: jobd's (`--runtime-dir`); `nil` keeps the runs in `path` too.
    package init(path: String, runtimeDirectory: String? = nil, logger: Logger) {
        self.path = path
        self.logger = logger
        runsPath = (runtimeDirectory ?? path) + "/runs"
        _ = mkdir(path, 0o755)
        _ = mkdir(path + "/timestamps", 0o755)
        _ = mkdir(path + "/history", 0o755)
        _ = mkdir(runsPath, 0o755)
        unusable = OwnedDirectory.problem(with: path) ?? OwnedDirectory.problem(with: path + "/timestamps")
            ?? OwnedDirectory.problem(with: path + "/history") ?? OwnedDirectory.problem(with: runsPath)
        if let unusable {
            logger.warning("not using the state directory: \(unusable); Persistent=, @reboot and the jobs' last runs will not survive a restart")
        }
        historyWriter = Self.writer(into: path + "/history/", reported: reportedFailure, logger: logger, text: \.text)
        stampWriter = Self.writer(into: path + "/timestamps/", reported: reportedFailure, logger: logger) { $0 }
        // Not durable, and in the runtime directory (tmpfs, kept across a restart and a crash's
        // Restart=): a run does not outlive the machine, only jobd. On ext4 each record's new inode
        // cost a sixth to a third of the spawn rate (docs/performance.md). At once: a run jobd adopts
        // after a crash is one it had recorded, and an ended run's record goes. (A pause of 100 ms
        // would leave a run started just before a crash neither adopted nor recorded.)
        runWriter = Self.writer(into: runsPath + "/", durable: false, pause: .seconds(0), reported: reportedFailure, logger: logger) { $0 }
    }

    /// A background writer of one file a job in `directory` (a `nil` text removes the job's file).
    private static func writer<Value>(
        into directory: String, durable: Bool = true, pause: Duration = .milliseconds(100), reported: LockedBox<Bool>, logger: Logger,
        text: @escaping @Sendable (Value) -> String?
    ) -> CoalescingWriter<Value> {
        CoalescingWriter(pause: pause) { job, value in
            let file = directory + job
            guard let text = value.flatMap(text) else { return _ = unlink(file) }
            do {
                try AtomicFile.replace(file, with: text, durable: durable)
            } catch {
                Self.reportFirst(String(describing: error), reported: reported, logger: logger)
            }
        }
    }

    package static func defaultPath(environment: [String: String]) -> String {
        environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) } ?? "/var/lib/jobd"
    }

    /// The stamp of `job`, if there is one jobd can believe. A stamp that is not a count of
    /// microseconds, or lies before 1970 or more than a day ahead of now, is refused with an error
    /// naming its file, and the job counts from jobd's start as if it had none: before this, `-1`
    /// disabled its job without a word.
    package func lastTrigger(of job: String) -> RealtimeInstant? {
        let file = path + "/timestamps/" + job
        // A stamp handed to the writer is on disk before it is read back.
        stampWriter.flush()
        guard let text = read(file) else { return nil }
        switch Self.stamp(text, nowUSec: RealtimeInstant.now().microseconds) {
        case .success(let instant):
            return instant
        case .failure(let problem):
            logger.error("\(file): \(problem); \(job) counts from jobd's start, as if it had never run",
                         metadata: [JobdField.job: .string(job)])
            return nil
        }
    }

    /// Why a stamp is not believed.
    package struct StampProblem: Error, CustomStringConvertible {
        package var description: String
    }

    /// Reads a stamp's text: wall-clock microseconds since 1970, no later than a day after `nowUSec`
    /// (a day leaves room for a clock that was set back since the stamp was written).
    package static func stamp(_ text: String, nowUSec: Int64) -> Result<RealtimeInstant, StampProblem> {
        guard let microseconds = Int64(text) else {
            return .failure(StampProblem(description: "expected a count of microseconds since 1970, found \"\(text.prefix(40))\""))
        }
        let day: Int64 = 86_400_000_000
        guard microseconds >= 0, microseconds <= nowUSec.addingReportingOverflow(day).partialValue else {
            return .failure(StampProblem(description: "the stamp \(microseconds) lies before 1970 or more than a day after now"))
        }
        return .success(RealtimeInstant(microseconds: microseconds))
    }

    /// Keeps `instant` as `job`'s last trigger, on a writer of its own: the main loop never waits
    /// for the disk at a `Persistent=` job's trigger.
    package func recordTrigger(of job: String, at instant: RealtimeInstant) {
        guard unusable == nil else { return }
        stampWriter.submit(job, String(instant.microseconds) + "\n")
    }

    /// The histories an earlier jobd kept (`history/JOB`, ``JobHistory/savedText``) of the jobs
    /// `jobs` names; the files of other jobs (whose job files are gone) are removed.
    package func savedHistories(of jobs: Set<String>) -> [String: JobHistory] {
        guard unusable == nil, case .success(let names) = FileSystem.directoryEntries(path + "/history") else { return [:] }
        var histories: [String: JobHistory] = [:]
        // Hidden names are AtomicFile's temporary files, left by a crash.
        for name in names where !name.hasPrefix(".") {
            let file = path + "/history/" + name
            guard jobs.contains(name) else {
                _ = unlink(file)
                continue
            }
            if let text = read(file, limit: 4_096), let history = JobHistory(savedText: Substring(text), job: name) { histories[name] = history }
        }
        return histories
    }

    /// Keeps `history` as `job`'s (`nil`: forgets it), on a writer of its own: the main loop never
    /// waits for the disk. Only the latest history of each job waits to be written, so what waits
    /// is bounded by the number of jobs.
    package func saveHistory(of job: String, _ history: JobHistory?) {
        guard unusable == nil else { return }
        historyWriter.submit(job, history.map { JobHistory.Saved($0) })
    }

    /// Waits until every history handed to ``saveHistory(of:_:)`` so far is on disk: at shutdown.
    package func flushHistories() {
        stampWriter.flush()
        historyWriter.flush()
        runWriter.flush()
    }

    package func keepPace(of histories: JobHistories) {
        guard unusable == nil, let bootID = read(path + "/boot-id") else { return }
        for (job, history) in histories { historyWriter.submit(job, JobHistory.Saved(history, paceBoot: bootID)) }
    }

    /// A run starts: its record is written once its process runs (``runSpawned(_:)``), one write a
    /// run. A run whose process never started (jobd stopped or crashed first, thousands in a burst)
    /// ran nothing, so the next jobd finds nothing of it: it is not recorded abandoned, a failure that
    /// starts `OnFailure=` jobs. A fleet run's record is written at once: the next jobd must release
    /// its claim even then. A run handed over by an earlier jobd comes with its process.
    package func runStarted(_ run: RunInFlightRecord) {
        guard unusable == nil else { return }
        let queued = pending.withLock { pending in
            if run.process == nil { pending.awaitingProcess[run.invocationID] = run }
            guard run.process != nil || run.claim != nil else { return false }
            pending.queued.insert(run.invocationID)
            return true
        }
        if queued { runWriter.submit(run.invocationID, run.savedText) }
    }

    /// The run's process runs its command: its record gets the process and its cgroup, for the next
    /// jobd to adopt it. Called on the run's own task, not the main loop's, which may be behind a
    /// burst that a crash would end (a run spawned then would be recorded abandoned, and left
    /// running unfollowed).
    package func runSpawned(_ spawned: SpawnedRun) {
        guard unusable == nil else { return }
        let process = KeeperDirectory.startTicks(of: spawned.pid).map { ProcessIdentity(pid: spawned.pid, startTicks: $0) }
        let record = pending.withLock { pending -> RunInFlightRecord? in
            guard var run = pending.awaitingProcess.removeValue(forKey: spawned.invocationID) else { return nil }
            run.process = process
            run.handedOver = HandedOverRun(cgroup: spawned.cgroup)
            return run
        }
        guard let record else { return }
        // A record that nothing wrote yet is made here, on the run's task, at once: handing it to
        // the writer's queue cost a thread's wake-up a run. A fleet run's, written at its start,
        // waits in that queue, and its replacement goes the same way, after it.
        if record.claim == nil {
            do {
                if try AtomicFile.create(runsPath + "/" + record.invocationID, with: record.savedText) { return }
            } catch {
                Self.reportFirst(String(describing: error), reported: reportedFailure, logger: logger)
                return
            }
            // One is there already: it is replaced through the queue, as a fleet run's is.
            pending.withLock { _ = $0.queued.insert(record.invocationID) }
        }
        runWriter.submit(record.invocationID, record.savedText)
    }

    package func runEnded(_ invocationID: String) {
        guard unusable == nil else { return }
        enum Kept { case nowhere, onDisk, queued }
        let kept = pending.withLock { pending -> Kept in
            // Drained after a burst: the room of its thousands of records goes too (a dictionary keeps it).
            defer {
                if pending.awaitingProcess.isEmpty, pending.awaitingProcess.capacity > 64 { pending.awaitingProcess = [:] }
                if pending.queued.isEmpty, pending.queued.capacity > 64 { pending.queued = [] }
            }
            // One that never started its process: written only if it holds a claim.
            if let run = pending.awaitingProcess.removeValue(forKey: invocationID), run.claim == nil { return .nowhere }
            return pending.queued.remove(invocationID) != nil ? .queued : .onDisk
        }
        switch kept {
        case .nowhere: break
        case .onDisk: _ = unlink(runsPath + "/" + invocationID)
        case .queued: runWriter.submit(invocationID, nil)
        }
    }

    /// The runs an earlier jobd kept in `runs/`, oldest first. A file whose name is not a run id
    /// jobd makes, or that names no job, is removed with an error naming it.
    package func abandonedRuns() -> [RunInFlightRecord] {
        guard unusable == nil else { return [] }
        moveLegacyRuns()
        guard case .success(let names) = FileSystem.directoryEntries(runsPath) else { return [] }
        var runs: [RunInFlightRecord] = []
        // Hidden names are AtomicFile's temporary files, left by a crash.
        for name in names where !name.hasPrefix(".") {
            let file = runsPath + "/" + name
            let isRunID = !name.isEmpty && name.count <= 64 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
            if isRunID, let text = read(file, limit: 4_096), let run = RunInFlightRecord(savedText: Substring(text), invocationID: name) {
                runs.append(run)
            } else if isRunID, AtomicFile.isUnwritten(file) {
                // Created, and a crash came before its write: the run's record was never written.
                _ = unlink(file)
            } else {
                logger.error("\(file): not a run jobd kept; removed")
                _ = unlink(file)
            }
        }
        return runs.sorted { ($0.startUSec, $0.invocationID) < ($1.startUSec, $1.invocationID) }
    }

    /// A jobd before this one kept its runs in flight in the state directory's `runs/`: after an
    /// upgrade they move to the runtime directory's, where this jobd follows and ends them.
    private func moveLegacyRuns() {
        let legacy = path + "/runs"
        guard legacy != runsPath, case .success(let names) = FileSystem.directoryEntries(legacy) else { return }
        if let problem = OwnedDirectory.problem(with: legacy) {
            logger.error("not reading the runs an earlier jobd kept: \(problem)")
            return
        }
        for name in names {
            let file = legacy + "/" + name
            if !name.hasPrefix("."), let text = read(file, limit: 4_096) {
                do {
                    try AtomicFile.replace(runsPath + "/" + name, with: text)
                } catch {
                    logger.error("\(file): cannot move to \(runsPath): \(error)")
                    continue
                }
            }
            _ = unlink(file)
        }
        _ = rmdir(legacy)
    }


    /// Jobs disabled with `jobctl disable`: one empty file per job in `disabled/`.
    package func disabledJobs() -> Set<String> {
        guard case .success(let names) = FileSystem.directoryEntries(path + "/disabled") else { return [] }
        // Hidden names are AtomicFile's temporary files.
        return Set(names.filter { !$0.hasPrefix(".") })
    }

    /// Records that `job` is disabled, or no longer.
    package func setDisabled(_ job: String, _ disabled: Bool) {
        if disabled {
            _ = mkdir(path + "/disabled", 0o755)
            write(path + "/disabled/" + job, "disabled")
        } else {
            _ = unlink(path + "/disabled/" + job)
        }
    }

    /// Whether this is jobd's first start in boot `bootID`; records the boot either way.
    package func isFirstStart(inBoot bootID: String) -> Bool {
        let previous = read(path + "/boot-id")
        write(path + "/boot-id", bootID)
        return previous != bootID
    }

    private func read(_ file: String, limit: Int = 128) -> String? {
        guard unusable == nil else { return nil }
        let fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = Glibc.read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters()
    }

    private func write(_ file: String, _ text: String) {
        guard unusable == nil else { return }
        let problem: String
        do {
            try AtomicFile.replace(file, with: text + "\n", durable: true)
            return
        } catch {
            problem = error.description
        }
        Self.reportFirst(problem, reported: reportedFailure, logger: logger)
    }

    /// Logs the first write that failed, and no later one: a full disk would otherwise log at every run.
    private static func reportFirst(_ problem: String, reported: LockedBox<Bool>, logger: Logger) {
        let firstFailure = reported.withLock { reported in
            defer { reported = true }
            return !reported
        }
        guard firstFailure else { return }
        logger.warning("\(problem) in the state directory; Persistent=, @reboot and the jobs' last runs will not survive a restart")
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var scalars = Substring(self)
        while let last = scalars.last, last == "\n" || last == " " { scalars = scalars.dropLast() }
        return String(scalars)
    }
}

extension HandedOverRun {
    /// What the next jobd needs of a run's cgroup (`cgroup`: its directory, path and v1 twins),
    /// with the start of a line not yet ended at a handover.
    package init(cgroup: RunCgroup?, pendingOutput: [UInt8] = [], pendingError: [UInt8] = []) {
        self.init(cgroupDirectory: cgroup?.directory, cgroupPath: cgroup?.path, cgroupLegacy: cgroup?.legacy ?? [:],
                  pendingOutput: pendingOutput, pendingError: pendingError)
    }
}

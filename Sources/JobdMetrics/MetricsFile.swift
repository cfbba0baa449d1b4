import Glibc
import JobdCalendar
import JobdConfig
import JobdControl
import JobdScheduler
import Prometheus

/// `MetricsFile=`: jobd's metrics in the Prometheus text format, for node_exporter's textfile
/// collector. The text comes from swift-prometheus; this writes it atomically (a temporary file in
/// the same directory renamed over the old one), so a collector never reads half a file.
package struct MetricsFile {
    /// What the metrics say of one job.
    struct Job {
        var name: String
        var history: JobHistory
        var running: Int
        var disabled: Bool
        var nextElapse: RealtimeInstant?
        /// `ExpectSuccessWithinSec=`, and whether the job is overdue by it.
        var expectSuccessWithin: TimeSpan? = nil
        var overdue = false
        /// Whether one node of a fleet runs each elapse (`RunOn=one-node`).
        var fleet = false
    }

    /// Reloads since jobd started, by outcome.
    package struct ReloadOutcomes {
        package var applied: UInt64 = 0
        package var partial: UInt64 = 0
        package var rejected: UInt64 = 0

        // Written out: the implicit initializer is internal, and the reload machine is another module.
        package init() {}
    }

    /// What the metrics say of jobd.
    struct Daemon {
        var startRealtime: RealtimeInstant
        var generation: UInt64
        var liveOwners: Int
        var leakedOwners: Int
        var armedTimers: Int
        var reloads: ReloadOutcomes
        /// The paths of the job files (and `jobd.conf`) with errors.
        var brokenFiles: [String]
    }

    /// How often the file is written when nothing changes: an alert on the file's age (or on
    /// `jobd_up` going stale in node_exporter) then tells a stopped jobd within two minutes. For
    /// the tests, their own build shortens it (``DaemonFaults/metricsRewrite``).
    package static let rewriteInterval = Duration.seconds(60)

    let path: String

    /// The whole file, as text.
    static func render(daemon: Daemon, jobs: [Job]) -> String {
        let registry = PrometheusCollectorRegistry()
        func gauge(_ name: String, _ unit: String, _ help: String, _ labels: [(String, String)] = []) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(
                namespace: "jobd", metricName: name, unitName: unit, helpText: help), labels: labels)
        }
        gauge("up", "", "1 while jobd runs: the file is written at least once a minute.").set(to: 1)
        gauge("start_time", "seconds", "When jobd started, in seconds since 1970.").set(to: Double(daemon.startRealtime.microseconds) / 1e6)
        gauge("build_info", "", "jobd's version and the commit it was built from.",
              [("version", BuildInfo.release), ("commit", BuildInfo.commit)]).set(to: 1)
        gauge("generation", "", "The configuration generation jobd runs.").set(to: Double(daemon.generation))
        gauge("owners_live", "", "Job owners alive, of the running generation and retired ones.").set(to: Double(daemon.liveOwners))
        gauge("owners_leaked", "", "Retired job owners reported as leaked (owner.leak) and still alive.").set(to: Double(daemon.leakedOwners))
        gauge("timers_armed", "", "Timers armed on jobd's timing thread.").set(to: Double(daemon.armedTimers))
        gauge("broken_files", "", "Job files (and jobd.conf) with errors.").set(to: Double(daemon.brokenFiles.count))
        for file in daemon.brokenFiles {
            gauge("broken_file", "", "1 for each job file (or jobd.conf) with errors, by path.", [("file", file)]).set(to: 1)
        }
        let reloads = MetricNameDescriptor(
            namespace: "jobd", metricName: "reloads", unitName: "total",
            helpText: "Reloads since jobd started, by outcome: applied, partial (broken files kept their jobs), rejected.")
        for (outcome, count) in [("applied", daemon.reloads.applied), ("partial", daemon.reloads.partial), ("rejected", daemon.reloads.rejected)] {
            registry.makeCounter(descriptor: reloads, labels: [("outcome", outcome)]).increment(by: Int64(count))
        }
        let runs = MetricNameDescriptor(namespace: "jobd", subsystem: "job", metricName: "runs", unitName: "total",
                                        helpText: "Runs that ended since jobd started, by result.")
        for job in jobs {
            let label = [("job", job.name)]
            let history = job.history
            func seconds(_ instant: RealtimeInstant?) -> Double? { instant.map { Double($0.microseconds) / 1e6 } }
            gauge("job_running", "", "Runs of the job in flight.", label).set(to: Double(job.running))
            gauge("job_disabled", "", "1 when jobctl disable keeps the job's triggers from starting runs.", label).set(to: job.disabled ? 1 : 0)
            if let start = seconds(history.lastStartRealtime) {
                gauge("job_last_start", "timestamp_seconds", "When the job's last run started.", label).set(to: start)
            }
            if let success = seconds(history.lastSuccessRealtime) {
                gauge("job_last_success", "timestamp_seconds", "When a run of the job last succeeded.", label).set(to: success)
            }
            if let trigger = seconds(history.lastTriggerRealtime) {
                gauge("job_last_trigger", "timestamp_seconds", "When the job last fell due.", label).set(to: trigger)
            }
            if let next = seconds(job.nextElapse) {
                gauge("job_next_elapse", "timestamp_seconds", "When the job falls due next.", label).set(to: next)
            }
            if let last = history.lastRun {
                gauge("job_last_duration", "seconds", "How long the job's last run took.", label).set(to: Double(last.duration.microseconds) / 1e6)
                gauge("job_last_exit_status", "", "The last run's exit status (128 plus the signal for a killed run, 203 for one that could not start).", label)
                    .set(to: Double(last.termination.shellStatus))
                gauge("job_last_failed", "", "1 when the job's last run failed.", label).set(to: last.result.isFailure ? 1 : 0)
            }
            for (result, count) in history.runsByResult.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                registry.makeCounter(descriptor: runs, labels: label + [("result", result.rawValue)]).increment(by: Int64(count))
            }
            renderSchedule(of: job, into: registry)
        }
        return stableOrder(registry.emitToString())
    }

    /// A job's series in kube-state-metrics' words for a CronJob (`kube_cronjob_next_schedule_time`,
    /// `…_status_last_schedule_time`, `…_status_last_successful_time`), so that dashboards and alerts
    /// written for those read jobd's with `kube_cronjob` replaced by `jobd_job`; and what a switch
    /// and the skipped elapses say.
    static func renderSchedule(of job: Job, into registry: PrometheusCollectorRegistry) {
        let label = [("job", job.name)]
        func gauge(_ name: String, _ help: String, _ labels: [(String, String)]) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "jobd", metricName: name, unitName: "", helpText: help), labels: labels)
        }
        func seconds(_ instant: RealtimeInstant?) -> Double? { instant.map { Double($0.microseconds) / 1e6 } }
        if let next = seconds(job.nextElapse) {
            gauge("job_next_schedule_time", "When the job falls due next, in seconds since 1970 (kube_cronjob_next_schedule_time).", label).set(to: next)
        }
        if let last = seconds(job.history.lastTriggerRealtime) {
            gauge("job_status_last_schedule_time", "When the job last fell due, run or not, in seconds since 1970 (kube_cronjob_status_last_schedule_time).", label)
                .set(to: last)
        }
        if let success = seconds(job.history.lastSuccessRealtime) {
            gauge("job_status_last_successful_time", "When a run of the job last succeeded, in seconds since 1970 (kube_cronjob_status_last_successful_time).", label)
                .set(to: success)
        }
        if let span = job.expectSuccessWithin {
            gauge("job_expect_success_within_seconds", "The job's ExpectSuccessWithinSec=.", label).set(to: Double(span.microseconds) / 1e6)
            gauge("job_overdue", "1 when the job has not succeeded within its ExpectSuccessWithinSec= (job.overdue), until a run succeeds.", label)
                .set(to: job.overdue ? 1 : 0)
        }
        let skipped = MetricNameDescriptor(
            namespace: "jobd", subsystem: "job", metricName: "skipped_elapses", unitName: "total",
            helpText: "Elapses of the job's triggers that started no run since jobd started, by reason (run.skip's JOBD_REASON).")
        for (reason, count) in job.history.skippedByReason.sorted(by: { $0.key < $1.key }) {
            registry.makeCounter(descriptor: skipped, labels: label + [("reason", reason.label)]).increment(by: Int64(count))
        }
        let missed = MetricNameDescriptor(
            namespace: "jobd", subsystem: "job", metricName: "missed_elapses", unitName: "total",
            helpText: "Calendar slots of the job that came and were not served since jobd started, by reason: jobd-down, clock-jump (a set of the clock or a suspend), late.")
        for (reason, count) in job.history.missedByReason.sorted(by: { $0.key < $1.key }) {
            registry.makeCounter(descriptor: missed, labels: label + [("reason", reason.rawValue)]).increment(by: Int64(count))
        }
        if job.fleet {
            // A claim is one row per elapse and attempt in the fleet's database: a second node's
            // claim of it fails, so no elapse runs twice. Exported so that an alert can say so.
            registry.makeCounter(descriptor: MetricNameDescriptor(
                namespace: "jobd", subsystem: "job", metricName: "duplicate_runs", unitName: "total",
                helpText: "Elapses of a RunOn=one-node job this node ran that another node ran too: 0, by the fleet's claims."), labels: label)
                .increment(by: Int64(0))
        }
    }

    /// `text` with its families sorted by name and each family's samples sorted: swift-prometheus
    /// writes them in the order of its dictionaries, which changes from one jobd to the next, and a
    /// file that reorders itself at every write is hard to compare or diff.
    static func stableOrder(_ text: String) -> String {
        var families: [(name: Substring, comments: [Substring], samples: [Substring])] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#") {
                // `# HELP NAME …` or `# TYPE NAME …`: a new family unless it names the current one.
                let name = line.split(separator: " ", maxSplits: 3).dropFirst(2).first ?? ""
                if families.last?.name != name { families.append((name, [], [])) }
                families[families.count - 1].comments.append(line)
            } else if families.isEmpty {
                families.append(("", [], [line]))
            } else {
                families[families.count - 1].samples.append(line)
            }
        }
        return families.sorted { $0.name < $1.name }
            .flatMap { $0.comments + $0.samples.sorted() }
            .map { $0 + "\n" }.joined()
    }

    /// Writes `text` to `path` atomically.
    func write(_ text: String) throws(AtomicFile.WriteError) {
        // Readable by the collector, which need not run as root.
        try AtomicFile.replace(path, with: text, mode: 0o644)
    }
}

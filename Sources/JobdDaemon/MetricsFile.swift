import Glibc
import JobdCalendar
import JobdConfig
import JobdScheduler
import Prometheus

/// `MetricsFile=`: jobd's metrics in the Prometheus text format, for node_exporter's textfile
/// collector. The text comes from swift-prometheus; this writes it atomically (a temporary file in
/// the same directory renamed over the old one), so a collector never reads half a file.
struct MetricsFile {
    /// What the metrics say of one job.
    struct Job {
        var name: String
        var history: JobHistory
        var running: Int
        var disabled: Bool
        var nextElapse: RealtimeInstant?
    }

    /// What the metrics say of jobd.
    struct Daemon {
        var generation: UInt64
        var liveOwners: Int
        var leakedOwners: Int
        var armedTimers: Int
        var reloadsAccepted: UInt64
        var reloadsRejected: UInt64
        var brokenFiles: Int
    }

    let path: String

    /// The whole file, as text.
    static func render(daemon: Daemon, jobs: [Job]) -> String {
        let registry = PrometheusCollectorRegistry()
        func gauge(_ name: String, _ unit: String, _ help: String, _ labels: [(String, String)] = []) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(
                namespace: "jobd", metricName: name, unitName: unit, helpText: help), labels: labels)
        }
        gauge("generation", "", "The configuration generation jobd runs.").set(to: Double(daemon.generation))
        gauge("owners_live", "", "Job owners alive, of the running generation and retired ones.").set(to: Double(daemon.liveOwners))
        gauge("owners_leaked", "", "Retired job owners reported as leaked (owner.leak) and still alive.").set(to: Double(daemon.leakedOwners))
        gauge("timers_armed", "", "Timers armed on jobd's timing thread.").set(to: Double(daemon.armedTimers))
        gauge("broken_files", "", "Job files (and jobd.conf) with errors.").set(to: Double(daemon.brokenFiles))
        let reloads = MetricNameDescriptor(namespace: "jobd", metricName: "reloads", unitName: "total", helpText: "Reloads since jobd started, by outcome.")
        registry.makeCounter(descriptor: reloads, labels: [("outcome", "accepted")]).increment(by: Int64(daemon.reloadsAccepted))
        registry.makeCounter(descriptor: reloads, labels: [("outcome", "rejected")]).increment(by: Int64(daemon.reloadsRejected))
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
                gauge("job_last_exit_status", "", "The last run's exit status (128 plus the signal for a killed run, 127 for one that could not start).", label)
                    .set(to: Double(last.shellStatus))
                gauge("job_last_failed", "", "1 when the job's last run failed.", label).set(to: last.result.isFailure ? 1 : 0)
            }
            for (result, count) in history.runsByResult.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                registry.makeCounter(descriptor: runs, labels: label + [("result", result.rawValue)]).increment(by: Int64(count))
            }
        }
        return registry.emitToString()
    }

    /// Writes `text` to `path` atomically.
    func write(_ text: String) throws(AtomicFile.WriteError) {
        // Readable by the collector, which need not run as root.
        try AtomicFile.replace(path, with: text, mode: 0o644)
    }
}

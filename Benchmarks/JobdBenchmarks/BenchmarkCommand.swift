import ArgumentParser
import Foundation

/// `jobd-benchmarks`: the figures of the README's Performance section, each measured against its
/// baseline in the same run. `scripts/benchmark` builds it in release and runs it.
@main
struct BenchmarkCommand: ParsableCommand {
    enum Part: String, CaseIterable, ExpressibleByArgument {
        case timers, daemon, runs, calendar, fleet, inflight, soak
    }

    static let configuration = CommandConfiguration(
        commandName: "jobd-benchmarks",
        abstract: "Measure jobd's timer core, daemon, runs and calendar engine against their baselines.")

    @Argument(help: "The parts to run (default: all): \(Part.allCases.map(\.rawValue).joined(separator: ", ")).")
    var parts: [Part] = []

    @Option(help: "Owner-bound timers per contender (part 1).")
    var timers = 100_000

    @Option(help: "Job files for the daemon figures (part 2).")
    var jobs = 10_000

    @Option(help: "Seconds of the idle window in which jobd's CPU time is measured (part 2).")
    var idleSeconds = 60

    @Option(help: "Calendar jobs for start to READY=1 and its RSS (part 2, issue 19); 0 skips it.")
    var startJobs = 100_000

    @Option(help: "Seconds over which runs per second are counted (part 3).")
    var runSeconds = 10

    @Option(help: "Calendar jobs loaded for issue 3's figure (part 4).")
    var calendarJobs = 100_000

    @Option(help: "Fleet jobs due at the same second (part 6).")
    var fleetJobs = 10_000

    @Option(help: "Runs of /bin/sleep in flight at once, one jobd each (part 7, issue 39).")
    var inflightRuns: [Int] = [1_000, 10_000]

    @Option(help: "How long each of those runs sleeps, in seconds (part 7).")
    var inflightSleep = 60

    @Option(help: "Reloads in the soak run.")
    var reloads = 1_000

    @Option(help: .hidden)
    var soakDriver: String?

    /// scripts/benchmark-sandbox: write the exec plan of a set of sandboxing keys to stdout.
    @Option(help: .hidden)
    var execPlan: String?

    @Option(help: .hidden)
    var planCgroup = "/sys/fs/cgroup/jobd-benchmark-sandbox/run"

    @Option(help: .hidden)
    var planPrivateTmp: String?

    func run() throws {
        if let execPlan {
            return try SandboxPlan.write(keys: execPlan, cgroup: planCgroup, privateTmp: planPrivateTmp)
        }
        if let soakDriver {
            // Inside scripts/with-journald: drive jobd, write the figures for the outer run.
            return try SoakDriver(directory: soakDriver, reloads: reloads).run()
        }
        let report = Report()
        let selected = parts.isEmpty ? Part.allCases : parts
        MachineDescription.print(report)
        for part in selected {
            switch part {
            case .timers: try TimerBenchmark(count: timers).run(report)
            case .daemon: try DaemonBenchmark(jobs: jobs, idleSeconds: idleSeconds, startJobs: startJobs).run(report)
            case .runs: try RunBenchmark(seconds: runSeconds).run(report)
            case .calendar: try CalendarBenchmark(jobs: calendarJobs).run(report)
            case .fleet: try FleetBenchmark(jobs: fleetJobs).run(report)
            case .inflight: try InflightBenchmark(counts: inflightRuns, sleepSeconds: inflightSleep).run(report)
            case .soak: try SoakRun(reloads: reloads).run(report)
            }
        }
        report.printSummary()
    }
}

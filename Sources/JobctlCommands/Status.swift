import ArgumentParser
import JobdControl

extension Jobctl {
    /// `jobctl status [JOB]`: the daemon, or one job.
    public struct Status: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Show the daemon's status, or one job's.",
            discussion: """
                Exit status: 0, 1 when there is no such job (or jobd refuses the caller), 2 when no \
                daemon runs.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "A job's name; without it, the daemon's status.", completion: .custom(Jobctl.completeJobNames))
        var job: String?

        @Flag(help: "Print JSON for scripts.")
        var json = false

        public init() {}

        public func run() throws {
            let (_, response) = try Jobctl.ask(runtime, ControlRequest(command: .status, job: job))
            let now = TimeFormat.nowUSec()
            if let daemon = response.daemon {
                if json { return Jobctl.printJSON(daemon) }
                print("jobd (pid \(daemon.pid)), instance \(daemon.instance)")
                print("     Since: \(TimeFormat.wallClock(daemon.startedRealtimeUSec)); \(TimeFormat.relative(daemon.startedRealtimeUSec, now: now))")
                print("Generation: \(daemon.generation), \(daemon.jobs) job(s)")
                print("    Owners: \(daemon.liveOwners) live, \(daemon.retiredOwnersAlive) retired but alive, \(daemon.leakedOwners) leaked")
                print("    Timers: \(daemon.liveTimers) live, \(daemon.armedTimers) armed")
                print("   Running: \(daemon.runningJobs)")
                if let reload = daemon.lastReload {
                    let outcome = reload.accepted ? "accepted" : "rejected (\(reload.errors.count) error(s))"
                    print("Last reload: \(outcome) at \(TimeFormat.wallClock(reload.finishedRealtimeUSec))")
                    for error in reload.errors { print("  \(error)") }
                } else {
                    print("Last reload: none")
                }
            } else if let job = response.jobStatus {
                if json { return Jobctl.printJSON(job) }
                print("\(job.name)\(job.description.map { " - \($0)" } ?? "")")
                print("      File: \(job.file)")
                print("   Command: \(job.command)")
                print("  Triggers: \(job.triggers.joined(separator: " "))")
                print("      Next: \(TimeFormat.wallClock(job.nextElapseUSec)); \(TimeFormat.relative(job.nextElapseUSec, now: now))")
                print("  Last run: \(TimeFormat.wallClock(job.lastStartUSec)); \(TimeFormat.relative(job.lastStartUSec, now: now))")
                if let start = job.lastStartUSec, let finish = job.lastFinishUSec, finish >= start {
                    print("  Duration: \(TimeFormat.relative(finish, now: start).replacingOccurrences(of: " left", with: ""))")
                }
                print("   Outcome: \(job.lastOutcome ?? "n/a")")
                print("   Running: \(job.running > 0 ? "yes (\(job.running))" : "no")")
                print("     Owner: \(job.owner) (generation \(job.generation))")
            }
        }
    }
}

import ArgumentParser
import JobdControl

extension Jobctl {
    /// `jobctl run JOB [--wait]`: start a run now, under the job's overlap rule.
    public struct Run: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Start a run of a job now.",
            discussion: """
                The job's Overlap= applies: with skip (the default) a job whose previous run is still \
                going is not started again (exit 75); with queue or replace the run waits for it. \
                With --wait, \
                jobctl exits with the run's exit status (128 + the signal for a killed run, 127 for \
                one that could not start). Exit status otherwise: 0 started or queued, 75 not \
                started, 1 no such job, 2 no daemon, 4 jobd refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "The job's name.", completion: .custom(Jobctl.completeJobNames))
        var job: String

        @Flag(help: "Wait for the run to end and exit with its status.")
        var wait = false

        public init() {}

        public func run() throws {
            let (client, started) = try Jobctl.ask(runtime, ControlRequest(command: .run, job: job, wait: wait))
            if started.type == .runSkipped {
                var standardError = StandardError()
                print("jobctl: \(job) was not started: \(started.run?.skipReason ?? "skipped")", to: &standardError)
                throw ExitCode(75)  // EX_TEMPFAIL: try again later
            }
            let runID = started.run?.runID.map(String.init) ?? "?"
            if started.type == .runQueued {
                print("queued run \(runID) of \(job): it starts when the run in flight or a free slot allows")
            } else {
                print("started run \(runID) of \(job)")
            }
            guard wait else { return }
            let finished: ControlResponse?
            do {
                finished = try client.receive()
            } catch {
                throw Jobctl.fail(error)
            }
            guard let finished, finished.type == .runFinished, let report = finished.run else {
                var standardError = StandardError()
                print("jobctl: the run's end was not reported\(finished?.message.map { ": \($0)" } ?? "")", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            print("run \(report.runID.map(String.init) ?? "?") of \(job): \(report.exitCode ?? "?") \(report.exitStatus ?? "")")
            let status = report.shellStatus ?? 1
            if status != 0 { throw ExitCode(status) }
        }
    }
}

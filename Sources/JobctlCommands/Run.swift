package import ArgumentParser
import JobdControl

extension Jobctl {
    /// `jobctl run JOB [--wait]`: start a run now, under the job's overlap rule.
    package struct Run: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Start a run of a job now.",
            discussion: """
                The job's Overlap= applies: with skip (the default) a job whose previous run is still \
                going is not started again (exit 75); with queue or replace the run waits for it. \
                With --wait, jobctl shows the run's output as jobd logs it (the job's standard \
                output on jobctl's standard output, its standard error on jobctl's standard error, \
                and nothing else; a terminal that cannot keep up loses lines and is told how many on \
                standard error, jobd never waits for it), then exits with the run's exit status (128 \
                + the signal for a killed run, 127 for one that could not start); --quiet shows \
                only when the run started and how it ended. Exit status otherwise: 0 started or queued, 75 not \
                started, 1 no such job, 2 no daemon, 4 jobd refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "The job's name.", completion: .custom(Jobctl.completeJobNames))
        var job: String

        @Flag(help: "Wait for the run to end, showing its output, and exit with its status.")
        var wait = false

        @Flag(help: "With --wait: do not show the run's output, only when it started and how it ended.")
        var quiet = false

        package init() {}

        package func run() throws {
            let streaming = wait && !quiet
            let (client, started) = try Jobctl.ask(runtime, ControlRequest(command: .run, job: job, wait: wait, output: wait ? streaming : nil))
            if started.type == .runSkipped {
                var standardError = StandardError()
                print("jobctl: \(job) was not started: \(started.run?.skipReason ?? "skipped")", to: &standardError)
                throw ExitCode(75)  // EX_TEMPFAIL: try again later
            }
            let runID = started.run?.runID.map(String.init) ?? "?"
            if streaming {
                // Only the job's own output: nothing of jobctl's on the job's streams.
            } else if started.type == .runQueued {
                print("queued run \(runID) of \(job): it starts when the run in flight or a free slot allows")
            } else {
                print("started run \(runID) of \(job)")
            }
            guard wait else { return }
            var finished: ControlResponse?
            var standardError = StandardError()
            do {
                while let response = try client.receive() {
                    switch response.type {
                    case .runOutput:
                        if response.stream == "stderr" {
                            print(response.line ?? "", to: &standardError)
                        } else {
                            print(response.line ?? "")
                        }
                    case .runOutputLost:
                        print("jobctl: \(response.lost ?? 0) line(s) of \(job)'s output lost here: this terminal read them more "
                              + "slowly than the job wrote them (all are in the journal: jobctl logs \(job) --run last)",
                              to: &standardError)
                    default:
                        finished = response
                    }
                    if finished != nil { break }
                }
            } catch {
                throw Jobctl.fail(error)
            }
            guard let finished, finished.type == .runFinished, let report = finished.run else {
                print("jobctl: the run's end was not reported\(finished?.message.map { ": \($0)" } ?? "")", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            let status = report.shellStatus ?? 1
            if streaming {
                if status != 0 { throw ExitCode(status) }
                return
            }
            print("run \(report.runID.map(String.init) ?? "?") of \(job): \(report.exitCode ?? "?") \(report.exitStatus ?? "")")
            if status != 0 { throw ExitCode(status) }
        }
    }
}

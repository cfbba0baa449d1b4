package import ArgumentParser
import JobdConfig
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
                output on jobctl's standard output, its standard error on jobctl's standard error; \
                a terminal that cannot keep up loses lines and is told how many on standard error, \
                jobd never waits for it), then one line on standard error saying how the run ended \
                and whether a retry follows ("jobctl: run 12 of backup: exit-code 1; retry 1/3 in 1s"), and exits with the \
                run's exit status (128 + the signal for a killed run, 203 for one that could not \
                start, with the reason); --quiet shows only when the run started and how it ended. \
                --follow-retries waits on through the run's retries and the jobs its last attempt \
                starts (OnFailure=, OnSuccess=), and exits with the last attempt's status. Exit \
                status otherwise: 0 started or queued, 75 not started, 1 no such job, 2 no daemon, 4 \
                jobd refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "The job's name.", completion: .custom(Jobctl.completeJobNames))
        var job: String

        @Flag(help: "Wait for the run to end, showing its output, and exit with its status.")
        var wait = false

        @Flag(help: "With --wait: do not show the run's output, only when it started and how it ended.")
        var quiet = false

        @Flag(help: "Wait on through the run's retries and the jobs its outcome starts; exit with the last attempt's status (implies --wait).")
        var followRetries = false

        package init() {}

        /// A skip reason, with what it means where the word alone does not say it: a budget of
        /// jobd.conf that the run would have gone beyond.
        package static func explaining(_ reason: String) -> String {
            switch reason {
            case "job-waiting-runs-max":
                "\(reason) (as many runs of the job already wait for a slot as JobWaitingRunsMax= of jobd.conf allows; try again later)"
            case "user-waiting-runs-max":
                "\(reason) (as many runs of your jobs already wait for a slot as UserWaitingRunsMax= of jobd.conf allows; try again later)"
            default: reason
            }
        }

        package func run() throws {
            let wait = self.wait || followRetries
            let streaming = wait && !quiet
            let request = ControlRequest(
                command: .run, job: job, wait: wait, output: wait ? streaming : nil, followRetries: followRetries ? true : nil)
            let (client, started) = try Jobctl.ask(runtime, request)
            var standardError = StandardError()
            if started.type == .runSkipped {
                print("jobctl: \(job) was not started: \(Self.explaining(started.run?.skipReason ?? "skipped"))", to: &standardError)
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
            // The last attempt of the job asked for; with --follow-retries, what follows it too.
            var last: RunReport?
            var ended = false
            do {
                while !ended, let response = try client.receive() {
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
                    case .runFinished, .runSkipped:
                        guard let report = response.run else { break }
                        if report.job == job {
                            last = report
                            describe(report, finished: response.type == .runFinished, to: &standardError)
                        } else {
                            // A job the last attempt's outcome started (--follow-retries).
                            let how = response.type == .runFinished ? Self.summary(of: report) : "not started: \(report.skipReason ?? "skipped")"
                            print("jobctl: \(report.job) (started by \(job)'s outcome): \(how)", to: &standardError)
                        }
                        // Without --follow-retries the first end is the answer; with it, jobd closes.
                        ended = !followRetries
                    default:
                        print("jobctl: \(response.message ?? "unexpected reply \(response.type.rawValue)")", to: &standardError)
                        ended = true
                    }
                }
            } catch {
                throw Jobctl.fail(error)
            }
            guard let last, last.runID != nil, last.skipReason == nil else {
                if last?.skipReason == nil {
                    print("jobctl: the run's end was not reported", to: &standardError)
                }
                throw ExitCode(last?.skipReason != nil ? 75 : ExitStatus.failure)
            }
            let status = last.shellStatus ?? 1
            if status != 0 { throw ExitCode(status) }
        }

        /// How a run of the job ended: on standard error after its output, or on standard output
        /// with --quiet (where it is all jobctl shows); why it could not start, if it did not.
        private func describe(_ report: RunReport, finished: Bool, to standardError: inout StandardError) {
            guard finished else {
                print("jobctl: run \(report.runID.map(String.init) ?? "?") of \(job) will not run: \(report.skipReason ?? "skipped")",
                      to: &standardError)
                return
            }
            if let reason = report.reason {
                print("jobctl: \(job) could not start: \(reason)", to: &standardError)
            }
            let line = "run \(report.runID.map(String.init) ?? "?") of \(job): \(Self.summary(of: report))"
            if quiet {
                print(line)
            } else {
                print("jobctl: " + line, to: &standardError)
            }
        }

        /// `exit-code 1; retry 1/3 in 1s`, `success`, `signal TERM`, `start-failed 203`.
        static func summary(of report: RunReport) -> String {
            var text = report.result ?? report.exitCode ?? "?"
            if report.result != "success", let status = report.exitStatus { text += " " + status }
            if let attempt = report.retryAttempt {
                text += "; retry \(attempt)/\(report.retryLimit.map(String.init) ?? "?")"
                if let delay = report.retryDelayUSec { text += " in \(TimeSpan(microseconds: delay))" }
            }
            return text
        }
    }
}

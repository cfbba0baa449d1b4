package import ArgumentParser
import JobdControl

extension Jobctl {
    /// `jobctl stop JOB [--wait]`: stop the job's runs in flight, as `RuntimeMaxSec=` stops a run.
    package struct Stop: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "stop",
            abstract: "Stop a job's runs in flight.",
            discussion: """
                Each run of JOB in flight gets SIGTERM (and SIGCONT) on its process group, and \
                SIGKILL once the job's TimeoutStopSec= has passed, as RuntimeMaxSec= stops a run; \
                jobd logs run.stop with JOBD_REASON=requested, and the run's result is "stopped". A \
                run waiting to start and a pending retry of the job are dropped. The job stays \
                scheduled: its next trigger starts it again (see jobctl disable). With --wait, \
                jobctl returns once every run has ended. Exit status: 0 (also when no run was in \
                flight), 1 no such job, 2 no daemon, 4 jobd refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "The job's name.", completion: .custom(Jobctl.completeJobNames))
        var job: String

        @Flag(help: "Wait until the job's runs have ended.")
        var wait = false

        package init() {}

        package func run() throws {
            let (client, requested) = try Jobctl.ask(runtime, ControlRequest(command: .stop, job: job, wait: wait))
            print(requested.message ?? "stopping \(job)")
            guard wait, requested.message?.hasSuffix("asked to stop") == true else { return }
            let finished: ControlResponse?
            do {
                finished = try client.receive()
            } catch {
                throw Jobctl.fail(error)
            }
            guard let finished, finished.type == .stopFinished else {
                var standardError = StandardError()
                print("jobctl: the runs' end was not reported\(finished?.message.map { ": \($0)" } ?? "")", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            print(finished.message ?? "stopped")
        }
    }
}

package import ArgumentParser
import JobdControl

extension Jobctl {
    /// `jobctl disable JOB`: the job's triggers start no runs, across reloads and restarts.
    package struct Disable: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "disable",
            abstract: "Keep a job's triggers from starting runs.",
            discussion: """
                Each trigger of a disabled job is logged as run.skip with JOBD_REASON=disabled \
                instead of starting a run; a pending retry is dropped; runs in flight go on (see \
                jobctl stop). jobctl run still starts it, as another job's OnFailure= or OnSuccess= \
                does. The state is kept in jobd's state directory, so it survives reloads and \
                restarts; jobctl list and status show it. Undo it with jobctl enable. Exit status: \
                0, 1 no such job, 2 no daemon, 4 jobd refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "The job's name.", completion: .custom(Jobctl.completeJobNames))
        var job: String

        package init() {}

        package func run() throws {
            _ = try Jobctl.ask(runtime, ControlRequest(command: .disable, job: job))
            print("\(job) disabled: its triggers start no runs until jobctl enable \(job)")
        }
    }
}

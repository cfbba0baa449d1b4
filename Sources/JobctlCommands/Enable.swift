package import ArgumentParser
import JobdControl

extension Jobctl {
    /// `jobctl enable JOB`: undo `jobctl disable`.
    package struct Enable: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "enable",
            abstract: "Let a disabled job's triggers start runs again.",
            discussion: """
                Undoes jobctl disable; the job's next trigger starts a run as usual. Exit status: \
                0 (also for a job that was not disabled), 1 no such job, 2 no daemon, 4 jobd \
                refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "The job's name.", completion: .custom(Jobctl.completeJobNames))
        var job: String

        package init() {}

        package func run() throws {
            _ = try Jobctl.ask(runtime, ControlRequest(command: .enable, job: job))
            print("\(job) enabled")
        }
    }
}

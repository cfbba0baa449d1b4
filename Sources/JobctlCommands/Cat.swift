package import ArgumentParser
import JobdControl

extension Jobctl {
    /// `jobctl --user cat [JOB…]`: the caller's own jobs as they wrote them, as `crontab -l` prints
    /// a crontab; without a job, every job of theirs, each after a `# USER:JOB` line.
    package struct Cat: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "cat",
            abstract: "Print your own jobs as you wrote them, as crontab -l does (jobctl --user cat [JOB...]).",
            discussion: """
                Prints your job JOB (jobd names it USER:JOB) as jobd keeps it in its spool, after a \
                line "# USER:JOB"; without JOB, every job of yours, in name order, one after the \
                other. A job whose file has errors is printed as well: jobd keeps the file. Exit \
                status: 0 printed; 1 a named job is not one of yours (the others are printed); 2 no \
                daemon; 4 jobd refuses you (users.allow, users.deny).
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "Jobs of yours, without your user name; all of them when none is named.",
                  completion: .custom(Jobctl.completeJobNames))
        var jobs: [String] = []

        package init() {}

        package func run() throws {
            let user = UserScope.userName
            var names = try jobs.map { try UserScope.ownName($0, user: user) }
            if names.isEmpty {
                let (_, listing) = try Jobctl.ask(runtime, ControlRequest(command: .list))
                names = (listing.jobs ?? []).map(\.name).filter { $0.hasPrefix(user + ":") }.sorted()
            }
            var missing = false
            for (index, name) in names.enumerated() {
                let (_, response) = try Jobctl.ask(runtime, ControlRequest(command: .userFile, job: name))
                guard let text = response.text else {
                    var standardError = StandardError()
                    print("jobctl: no job \(name)", to: &standardError)
                    missing = true
                    continue
                }
                print((index > 0 ? "\n" : "") + "# \(name)")
                print(text, terminator: text.hasSuffix("\n") || text.isEmpty ? "" : "\n")
            }
            if missing { throw ExitCode(Jobctl.ExitStatus.failure) }
        }
    }
}

import ArgumentParser

/// jobctl: the operator's tool for jobd. Each subcommand is its own type in this module; the
/// `jobctl` executable only runs this.
public struct Jobctl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "jobctl",
        abstract: "Inspect and control jobd.",
        discussion: """
            Each subcommand's --help gives its exit status. Shared by all: 2 when no daemon runs \
            (for the commands that ask it) or the journal cannot be read (audit, logs), 64 for \
            invalid arguments.
            """,
        version: BuildInfo.version,
        subcommands: [Check.self, Calendar.self, Reload.self, List.self, Status.self, Run.self, Audit.self, Logs.self, Fleet.self])

    public init() {}

    /// Runs jobctl on the process's arguments. The same as ArgumentParser's `main()`, except that
    /// `-b`/`--boot` take their value as journalctl does (see ``BootSelector/normalize(_:)``).
    public static func main() async {
        let arguments = BootSelector.normalize(Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

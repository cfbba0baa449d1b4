import ArgumentParser

/// jobctl: the operator's tool for jobd. Each subcommand is its own type in this module; the
/// `jobctl` executable only runs this.
public struct Jobctl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "jobctl",
        abstract: "Inspect and control jobd.",
        version: "0.1.0",
        subcommands: [Check.self, Calendar.self, Reload.self, List.self, Status.self, Run.self, Audit.self, Import.self])

    public init() {}
}

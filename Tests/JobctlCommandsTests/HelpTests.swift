import ArgumentParser
@testable import JobctlCommands
import Testing

/// Operator-facing text is product: every subcommand's --help says how it exits.
@Suite struct HelpTests {
    @Test func everySubcommandsHelpGivesItsExitStatus() {
        for command in Jobctl.configuration.subcommands {
            let help = Jobctl.helpMessage(for: command, columns: 10_000)
            #expect(help.contains("Exit status") || help.contains("Exits 0"), "\(command._commandName): \(help)")
        }
    }

    /// Every subcommand names itself: a name left to ArgumentParser is made from the type's name
    /// (`String(describing:)`), which searches the runtime's protocol conformances at each start
    /// of jobctl, about 2 ms of `jobctl list` (issue 19).
    @Test func everySubcommandNamesItself() {
        var commands = Jobctl.configuration.subcommands
        while let command = commands.popLast() {
            #expect(command.configuration.commandName != nil, "\(command)")
            commands += command.configuration.subcommands
        }
    }
}

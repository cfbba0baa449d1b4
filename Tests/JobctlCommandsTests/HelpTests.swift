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
}

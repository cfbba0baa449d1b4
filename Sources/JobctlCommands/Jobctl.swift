package import ArgumentParser
import Glibc
import JobdConfig
import JobdControl

/// jobctl: the operator's tool for jobd. Each subcommand is its own type in this module; the
/// `jobctl` executable only runs this.
package struct Jobctl: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "jobctl",
        abstract: "Inspect and control jobd.",
        discussion: """
            Each subcommand's --help gives its exit status. Shared by all: 2 when no daemon runs \
            (for the commands that ask it) or the journal cannot be read (audit, logs), 4 when \
            jobd refuses the caller (root may do everything; members of group jobd may list and \
            look; every other user acts on their own jobs), 64 for invalid arguments.

            jobctl --user edit|cat|list|status|run|stop|logs|disable|enable [JOB] (and import cron \
            [FILE], your crontab into jobs of yours) acts on your own \
            jobs, which jobd names USER:JOB and runs as you (jobctl --user run backup is jobctl run \
            alice:backup for alice); the administrator decides who may have them in \
            /etc/jobd/users.allow and users.deny.
            """,
        version: BuildInfo.versionText,
        subcommands: [
            Check.self, Calendar.self, Reload.self, List.self, Status.self, Run.self, Stop.self, Disable.self, Enable.self, Edit.self, Cat.self,
            Security.self, Audit.self, Logs.self, Import.self, Fleet.self,
        ])

    package init() {}

    /// The first argument when it is a word but no command's name, with the command it most likely
    /// meant: ArgumentParser would call it an unexpected argument and suggest nothing.
    static func unknownCommand(in arguments: [String]) -> (word: String, nearest: String?)? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !names.contains(first) else { return nil }
        return (first, KeySpelling.nearest(to: first, among: names))
    }

    /// Runs jobctl on the process's arguments. The same as ArgumentParser's `main()`, except that
    /// `-b`/`--boot` take their value as journalctl does (see ``BootSelector/normalize(_:)``).
    package static func main() async {
        var arguments = BootSelector.normalize(Array(CommandLine.arguments.dropFirst()))
        do {
            if let own = try UserScope.arguments(arguments, user: UserScope.userName) { arguments = own }
        } catch {
            var standardError = StandardError()
            print("jobctl: \(error.message)", to: &standardError)
            Glibc.exit(64)
        }
        if let unknown = unknownCommand(in: arguments) {
            var standardError = StandardError()
            print("jobctl: unknown command '\(unknown.word)'" + (unknown.nearest.map { "; did you mean '\($0)'?" } ?? "")
                  + " (jobctl --help lists the commands)", to: &standardError)
            Glibc.exit(64)  // EX_USAGE, as ArgumentParser's own usage errors
        }
        if arguments.contains(where: { $0 == "--generate-completion-script" || $0 == "---completion" }) {
            return await Shell.main(arguments)
        }
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

extension Jobctl {
    /// jobctl as shell completion sees it: `jobctl --user COMMAND` is taken apart by ``UserScope``
    /// before parsing, so only here, where the completion script is generated and asks for job
    /// names, is `--user` a flag of jobctl's own (elsewhere it would take `import cron --user USER`).
    struct Shell: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: Jobctl.configuration.commandName, abstract: Jobctl.configuration.abstract, subcommands: Jobctl.configuration.subcommands)

        @Flag(help: "Act on your own jobs (edit, cat, list, status, run, stop, logs, disable, enable, import cron).")
        var user = false
    }
}

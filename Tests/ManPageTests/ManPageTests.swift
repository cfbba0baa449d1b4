import ArgumentParser
import Foundation
import JobctlCommands
import JobdTestKit
import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile

/// The manual pages are part of the product: they must say what the code does. Each key of a job
/// file and of jobd.conf is defined in its page (and no key that does not exist), each jobctl
/// command has its section naming every option its --help gives, and the generated roff is clean
/// for man and lexgrog.
@Suite struct ManPageTests {
    @Test func thePagesAreTheFiveExpected() throws {
        #expect(try ManPageSource.all() == ["crontab.1", "jobctl.1", "jobd.8", "jobd.conf.5", "jobd.job.5"])
    }

    /// crontab(1) names each of crontab's options, as its usage gives them, and each message a
    /// user meets that the page explains.
    @Test func crontabNamesEveryOptionOfItsUsage() throws {
        let page = try ManPageSource("crontab.1")
        let options = Set(CrontabArguments.usage.matches(of: /-([a-z])\b/).map { "*-\($0.1)*" })
        #expect(options.count == 5, "\(options)")
        for option in options { #expect(page.text.contains(option), "crontab(1) does not name \(option)") }
        for message in ["no crontab for USER", "Do you want to retry the same edit? (y/n)", "must be privileged to use -u"] {
            #expect(page.text.contains(message), "crontab(1) does not say \(message)")
        }
    }

    @Test func jobdJobDefinesEveryJobKeyAndNoOther() throws {
        let keys = try ManPageSource("jobd.job.5").definedKeys
        #expect(keys.sorted() == JobKey.names.sorted())
        #expect(Set(keys).count == keys.count, "a key is defined twice: \(keys)")
    }

    @Test func jobdConfDefinesEveryDaemonAndCronSettingAndNoOther() throws {
        let keys = try ManPageSource("jobd.conf.5").definedKeys
        #expect(keys.sorted() == (DaemonSettings.keys + CronSettings.keys).sorted())
    }

    @Test func jobctlHasASectionForEveryCommandNamingEachOfItsOptions() throws {
        let page = try ManPageSource("jobctl.1")
        let commands = Jobctl.configuration.subcommands.map { $0._commandName }
        #expect(page.subsections.sorted() == commands.map { "jobctl " + $0 }.sorted())
        for command in Jobctl.configuration.subcommands {
            let name = command._commandName
            let help = Jobctl.helpMessage(for: command, columns: 10_000)
            let section = try #require(page.subsection("jobctl " + name), "no section '## jobctl \(name)' in jobctl(1)")
            for option in ManPageSource.longOptions(in: help) {
                #expect(section.contains("*\(option)*"), "jobctl(1)'s section on \(name) does not name \(option)")
            }
        }
    }

    @Test func jobdNamesEveryOptionOfItsHelp() throws {
        let help = try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobd", ["--help"])
        #expect(help.status == 0)
        let options = ManPageSource.longOptions(in: help.standardOutput)
        #expect(options.contains("--config-dir"), "jobd --help: \(help.standardOutput)")
        let page = try ManPageSource("jobd.8")
        for option in options {
            #expect(page.text.contains("*\(option)*"), "jobd(8) does not name \(option)")
        }
    }

    /// scripts/man's roff, as scripts/install and the package install it: man formats every page
    /// without a warning, and lexgrog finds its NAME line (what mandb and apropos read).
    @Test func generatedPagesAreCleanForManAndLexgrog() throws {
        try Self.requireTools()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("jobd-man-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let generate = try CapturedProcess.run(DaemonProcess.packageRoot() + "/scripts/man", [output])
        #expect(generate.status == 0, "scripts/man: \(generate.standardError)")
        for page in try ManPageSource.all() {
            let path = output + "/" + page
            var environment = ProcessInfo.processInfo.environment
            environment["MANWIDTH"] = "80"
            environment["MAN_KEEP_STDERR"] = "1"
            let man = try CapturedProcess.run("/usr/bin/man", ["--warnings", "-E", "UTF-8", "-l", path], environment: environment)
            #expect(man.status == 0 && man.standardError.isEmpty, "man --warnings -l \(page): \(man.standardError)")
            #expect(man.standardOutput.contains("NAME"), "man -l \(page) printed no NAME section")
            let lexgrog = try CapturedProcess.run("/usr/bin/lexgrog", [path])
            let name = page.split(separator: ".").dropLast().joined(separator: ".")
            #expect(lexgrog.status == 0 && lexgrog.standardOutput.contains("\"\(name) - "),
                    "lexgrog \(page): \(lexgrog.standardOutput)\(lexgrog.standardError)")
        }
    }

    /// scdoc and man-db (scripts/setup installs both): without them the test is cancelled loudly,
    /// or fails when `CI=true`.
    static func requireTools(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try Requirement.tools("/usr/bin/scdoc", "/usr/bin/man", "/usr/bin/lexgrog", for: "the man page check", sourceLocation: sourceLocation)
    }
}

import Foundation
import JobctlCommands
import JobctlReports
import JobdCalendar
import JobdConfig
import JobdImport
import JobdRunner
import Logging
import Testing

/// Generated crontabs, imported, against cron's own reading of them: the job's schedule elapses
/// when `jobctl calendar --cron` says the line does, and its command, run as jobd would run it,
/// prints the same, reads the same input and exits with the same status as `/bin/sh -c` on the
/// command cron would run with the input cron would write.
@Suite(.serialized) struct CronRoundTripTests {
    static let home = "/root"
    static let zone = try! TimeZoneRules.load(named: "Europe/Berlin")
    /// 2026-03-28 12:00 UTC: the next 20 elapses of many schedules cross a change to summer time.
    static let base = RealtimeInstant(seconds: 1_774_699_200)

    struct Case {
        var crontab: String
        var systemFormat: Bool
    }

    static func cases() -> [Case] {
        var generator = CrontabGenerator(seed: 0x6A0B_D7E5)
        return (0..<40).map { index in
            let systemFormat = index % 2 == 0
            var lines: [String] = ["# generated crontab \(index)"]
            for _ in 0..<6 {
                if generator.chance(35) {
                    lines.append(generator.environmentLine(name: generator.pick(CrontabGenerator.variables)))
                }
                if generator.chance(10) { lines.append(generator.pick(["SHELL=/bin/bash", "SHELL=/bin/sh", "PATH=/bin:/usr/bin:/usr/local/bin"])) }
                let user = systemFormat ? generator.pick([" root", "\troot"]) : ""
                lines.append(generator.schedule() + user + generator.pick([" ", "\t", "  "]) + generator.command())
            }
            return Case(crontab: lines.joined(separator: "\n") + "\n", systemFormat: systemFormat)
        }
    }

    @Test func importedJobsElapseAndRunAsCronWould() throws {
        let runner = JobRunner(logger: Logger(label: "import-tests"), environment: [:], host: SystemHostFacts())
        var compared = 0, withInput = 0, withEnvironment = 0, withAtNames = 0, withUserField = 0
        for testCase in Self.cases() {
            let result = CrontabImporter.convert(testCase.crontab, options: CrontabImporter.Options(
                path: "generated", systemFormat: testCase.systemFormat, user: testCase.systemFormat ? nil : "root",
                homeDirectory: { $0 == "root" ? Self.home : nil }))
            let commandLines = cronLines(testCase)
            #expect(result.jobs.count == commandLines.count, "\(testCase.crontab)\n\(result.report.lines(path: "generated"))")
            for (job, line) in zip(result.jobs, commandLines) {
                let context = "line: \(line.text)\njob file:\n\(job.text)"
                let definition: JobDefinition
                switch JobFileReader.read(name: job.name, path: "\(job.name).job", text: job.text) {
                case .success(let read): definition = read
                case .failure(let errors):
                    Issue.record("\(errors)\n\(context)")
                    continue
                }
                // The schedule, by the API of jobctl calendar --cron.
                guard case .cron(let spec) = definition.triggers.first,
                      let cron = job.assignments.first(where: { $0.key == "Cron" })?.value else {
                    Issue.record("no Cron= trigger\n\(context)")
                    continue
                }
                if line.schedule == "@reboot" {
                    #expect(spec == .reboot, "\(context)")
                } else {
                    #expect(elapses(cron) == elapses(line.schedule), "\(context)")
                }

                // The command: cron's way, then jobd's.
                let reference = DebianCronReference.split(line.commandText)
                var cronEnvironment = ["SHELL": "/bin/sh", "PATH": "/usr/bin:/bin", "HOME": Self.home, "LOGNAME": "root"]
                for (name, value) in line.environment { cronEnvironment[name] = value }
                let shell = cronEnvironment["SHELL"]!
                var input = reference.input.flatMap { $0.isEmpty ? nil : $0 }
                if let bytes = input, bytes.last != UInt8(ascii: "\n") {
                    // The one input a here-document cannot give: a backslash at the end with no
                    // newline after it. The import says so, and the job gets a newline after it.
                    #expect(result.report.entries.contains { $0.line == line.number && $0.kind == .notCarriedOver }, "\(context)")
                    input = bytes + [UInt8(ascii: "\n")]
                }
                let expected = try ProcessRun.run(
                    [shell, "-c", String(decoding: reference.command, as: UTF8.self)], environment: cronEnvironment,
                    directory: cronEnvironment["HOME"]!, input: input)

                let account = try Account.resolve(user: definition.user, group: definition.group)
                let environment = runner.environment(for: definition, account: account, runID: 1)
                let argv = definition.command.argv(environment: environment)
                let actual = try ProcessRun.run(
                    argv, environment: environment, directory: definition.workingDirectory?.path ?? "/", input: nil)
                #expect(actual == expected, "\(context)\nargv: \(argv)")
                compared += 1
                if reference.input != nil { withInput += 1 }
                if !line.environment.isEmpty { withEnvironment += 1 }
                if line.schedule.hasPrefix("@") { withAtNames += 1 }
                if testCase.systemFormat { withUserField += 1 }
            }
        }
        #expect(compared >= 200, "compared \(compared) lines")
        #expect(withInput >= 50 && withEnvironment >= 50 && withAtNames >= 20 && withUserField >= 100,
                "\(withInput) with % input, \(withEnvironment) with environment lines, \(withAtNames) with @ names, \(withUserField) with a user field")
    }

    /// The next 20 elapses as `jobctl calendar --cron` shows them, without the line naming the input.
    func elapses(_ schedule: String) -> [String] {
        let report = CalendarReport.render([schedule], now: Self.base, baseTime: Self.base, zone: Self.zone, iterations: 20, cron: true)
        #expect(report.allValid, "\(schedule): \(report.errors)")
        return report.output.split(separator: "\n").map(String.init).filter { !$0.contains("Original form") && !$0.contains("From now") }
    }

    struct CronLine {
        var number: Int
        var text: String
        var schedule: String
        var commandText: String
        var environment: [(String, String)]
    }

    /// The crontab's command lines, each with the environment cron gives it, read here with
    /// cron's rules independently of the importer: `NAME = value` lines with optional quotes.
    func cronLines(_ testCase: Case) -> [CronLine] {
        var environment: [(String, String)] = []
        var lines: [CronLine] = []
        for (index, text) in testCase.crontab.split(separator: "\n").enumerated() where !text.hasPrefix("#") {
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if let equals = text.firstIndex(of: "="), !text.hasPrefix("@"), words.count < 5 || words[1].hasPrefix("=") || words[0].contains("=") {
                let name = text[..<equals].trimmingCharacters(in: .whitespaces)
                var value = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                // Quotes come off, then the blanks at the end (also those inside them), then one more
                // pair of quotes (Debian's load_env and its strdtb).
                func unquote() {
                    if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                        value = String(value.dropFirst().dropLast())
                    }
                }
                unquote()
                while value.last == " " || value.last == "\t" { value.removeLast() }
                unquote()
                environment.removeAll { $0.0 == name }
                environment.append((name, value))
                continue
            }
            let fields = text.hasPrefix("@") ? 1 : 5
            let scheduleWords = words.prefix(fields).joined(separator: " ")
            var rest = text[...]
            for _ in 0..<(fields + (testCase.systemFormat ? 1 : 0)) {
                rest = rest.drop { $0 == " " || $0 == "\t" }.drop { $0 != " " && $0 != "\t" }
            }
            lines.append(CronLine(number: index + 1, text: String(text), schedule: scheduleWords,
                                  commandText: String(rest.drop { $0 == " " || $0 == "\t" }), environment: environment))
        }
        return lines
    }
}

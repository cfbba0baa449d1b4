package import ArgumentParser
import FoundationEssentials
import Glibc
import JobdConfig
import JobdFleet
import JobdImport

extension Jobctl {
    /// `jobctl check`: validates a configuration, or single job files, without a daemon and reports
    /// every error.
    package struct Check: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Validate a configuration directory, or job files, and report every error.",
            discussion: """
                Without FILE: the configuration directory's jobd.conf and every jobs.d/*.job, as jobd \
                loads them. With FILE...: exactly those job files (each named NAME.job, wherever it \
                is), with the jobd.conf of --config-dir, or, without --config-dir, the jobd.conf (if \
                there is one) of the directory holding the first file's jobs.d/, or else of the first \
                file's own directory.

                A FILE that is one of cron's (/etc/crontab, a file of a cron.d directory, a crontab \
                of the spool, .../crontabs/USER) is read as jobd's cron mode reads it: the system \
                format (a user field) by location, cron's checks of its owner and mode, and every \
                line; a file cron passes over (a cron.d name with a dot, such as NAME.dpkg-old; \
                tmp.* in the spool) is said to be one. A line that exits 1 in normal operation \
                (command -v X > /dev/null && X) is warned about unless the jobd.conf of \
                --config-dir (default /etc/jobd) says [Cron] FailureResult=ignore.

                Each error names the file and line. Exit status: 0 when everything is valid, 1 when \
                anything is not.
                """)

        @Option(name: .customLong("config-dir"),
                help: "The configuration directory, holding jobd.conf and jobs.d/ (default: /etc/jobd).")
        var configDirectory: String?

        @Argument(help: ArgumentHelp("Job files to check instead of the whole directory.", valueName: "FILE"),
                  completion: .file(extensions: ["job"]))
        var files: [String] = []

        package init() {}

        package func run() throws {
            let cronFiles = files.filter { CronSourceFile.kind(ofPath: $0) != nil }
            let cronBroken = cronFiles.isEmpty ? false : Self.checkCronFiles(cronFiles, failureResult: cronFailureResult())
            // Only cron's files named: no job files, so no configuration directory, to check.
            guard files.isEmpty || cronFiles.count < files.count else {
                if cronBroken { throw ExitCode(1) }
                return
            }
            try checkJobFiles(files.filter { CronSourceFile.kind(ofPath: $0) == nil })
            if cronBroken { throw ExitCode(1) }
        }

        /// `[Cron] FailureResult=` of the jobd.conf of `--config-dir` (else `/etc/jobd`), which
        /// decides, as for cron mode, whether a line that exits 1 in normal operation is warned
        /// about; `judge` where jobd.conf does not read (its errors are its own check's).
        private func cronFailureResult() -> CronSettings.FailureResult {
            let directory = JobDirectory(path: configDirectory ?? "/etc/jobd", databaseCheck: FleetConnectionString.check)
            guard case .success(let settings) = directory.loadSettings() else { return .judge }
            return settings.cron.failureResult
        }

        /// Each of cron's `paths` as cron mode reads it (``CrontabCheck``, as crontab(1) checks
        /// before it installs): errors and warnings on standard error; `true` if any error.
        static func checkCronFiles(_ paths: [String], failureResult: CronSettings.FailureResult) -> Bool {
            var standardError = StandardError()
            var broken = false
            for path in paths {
                guard let kind = CronSourceFile.kind(ofPath: path),
                      let source = CronSourceFile.read(path, kind: kind, followLink: kind.systemFormat) else {
                    print("\(path): error: cannot be read: \(String(cString: strerror(errno)))", to: &standardError)
                    broken = true
                    continue
                }
                let check = CrontabCheck.check(source, failureResult: failureResult, account: CronTable.account(named:))
                for line in check.errors + check.warnings { print(line, to: &standardError) }
                for note in check.notes { print(note) }
                if check.errors.isEmpty, check.notes.isEmpty {
                    print("\(path): cron's file, no errors")
                } else if !check.errors.isEmpty {
                    print("\(check.errors.count) error(s) in \(path)", to: &standardError)
                    broken = true
                }
            }
            return broken
        }

        private func checkJobFiles(_ files: [String]) throws {
            let result: Result<Configuration, ConfigErrors>
            let checked: String
            if files.isEmpty {
                let directory = configDirectory ?? "/etc/jobd"
                result = JobDirectory(path: directory, databaseCheck: FleetConnectionString.check).loadConfiguration()
                checked = directory
            } else {
                result = JobDirectory(path: configDirectory ?? Self.configDirectory(of: files[0]), databaseCheck: FleetConnectionString.check).loadConfiguration(files: files)
                checked = files.count == 1 ? files[0] : "\(files.count) files"
            }
            switch result {
            case .success(let configuration):
                print("\(checked): \(configuration.jobs.count) job(s), no errors")
                for definition in configuration.jobs {
                    let triggers = definition.triggers.map(\.description).joined(separator: " ")
                    print("  \(definition.name): \(triggers)")
                }
                var standardError = StandardError()
                for definition in configuration.jobs {
                    for warning in Self.warnings(about: definition) { print(warning, to: &standardError) }
                }
            case .failure(let errors):
                var standardError = StandardError()
                print(errors.description, to: &standardError)
                let files = Set(errors.errors.map(\.file)).count
                print("\(errors.errors.count) error(s) in \(files) file(s)", to: &standardError)
                throw ExitCode(1)
            }
        }

        /// What is valid but almost surely not meant, as `FILE:LINE: warning: …`: shell operators in
        /// a command that runs no shell, and timer keys that change nothing for this job.
        static func warnings(about definition: JobDefinition) -> [String] {
            let at = { (key: String) in definition.path + (Self.line(of: key, in: definition.path).map { ":\($0)" } ?? "") }
            let ineffective = TimerOptions.ineffectiveKeys(of: definition).map { "\(at($0.key)): warning: \($0.key)= has no effect: \($0.why)" }
            let words = definition.command.shellOperatorWords
            guard !words.isEmpty else { return ineffective }
            let shown = words.map { "'\($0)'" }.joined(separator: ", ")
            return ["\(at("ExecStart")): warning: ExecStart= runs no shell, so \(shown) reach\(words.count == 1 ? "es" : "") "
                + "the program as \(words.count == 1 ? "an argument" : "arguments"); for a pipeline, a redirection or a list, "
                + "ask for a shell: ExecStart=/bin/sh -c '…'"] + ineffective
        }

        /// The last line of `file` that sets `key` (the one that counts), 1-based.
        static func line(of key: String, in file: String) -> Int? {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
            var found: Int?
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.drop { $0 == " " || $0 == "\t" }
                if trimmed.hasPrefix(key), trimmed.dropFirst(key.count).drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("=") {
                    found = index + 1
                }
            }
            return found
        }

        /// `DIR` for a file `DIR/jobs.d/NAME.job`, else the file's own directory.
        static func configDirectory(of file: String) -> String {
            let parent = parentDirectory(of: file)
            if parent.split(separator: "/").last == "jobs.d" {
                let directory = parentDirectory(of: parent)
                return directory.isEmpty ? "." : directory
            }
            return parent.isEmpty ? "." : parent
        }

        /// `path` without its last component, as `NSString.deletingLastPathComponent`: `a/b` of
        /// `a/b/c` (and of `a/b/c/`), `/` of `/c`, nothing of `c`.
        static func parentDirectory(of path: String) -> String {
            var path = Substring(path)
            while path.count > 1, path.last == "/" { path.removeLast() }
            guard let slash = path.lastIndex(of: "/") else { return "" }
            if slash == path.startIndex { return "/" }
            var parent = path[..<slash]
            while parent.count > 1, parent.last == "/" { parent.removeLast() }
            return String(parent)
        }
    }
}

import ArgumentParser
import Glibc

/// `jobctl --user COMMAND [JOB] ...`: the caller's own jobs, which jobd names `USER:JOB`. The
/// arguments become the command's own, with the job named in full: `--user run backup` is
/// `run alice:backup` for alice, `--user status` without a job is `list` (jobd lists a user's own
/// jobs only), and `--user edit backup` is `edit backup`.
enum UserScope {
    /// The commands `--user` takes.
    static let commands = ["edit", "cat", "list", "status", "run", "stop", "logs", "disable", "enable", "import"]
    /// Options of those commands that take a value: the word after one is not the job.
    static let valueOptions: Set<String> = [
        "--runtime-dir", "--run", "-n", "--lines", "--since", "--until", "-o", "--output", "-b", "--boot", "--journal-dir",
    ]

    /// The arguments without `--user`, for `user`; `nil` when they do not start with `--user`.
    /// Throws the message for a command `--user` does not take.
    static func arguments(_ arguments: [String], user: String) throws(UsageError) -> [String]? {
        guard arguments.first == "--user" else { return nil }
        let rest = Array(arguments.dropFirst())
        guard let command = rest.first, commands.contains(command) else {
            throw UsageError("jobctl --user takes one of " + commands.joined(separator: ", ") + (rest.first.map { ", not '\($0)'" } ?? ""))
        }
        var words = Array(rest.dropFirst())
        guard command != "edit", command != "cat", command != "list" else { return [command] + words }
        if command == "import" {
            // Your own crontab, into jobs of your own (jobd checks and keeps each).
            guard words.first == "cron" else { throw UsageError("jobctl --user import takes cron: jobctl --user import cron [FILE]") }
            return ["import"] + words + ["--own"]
        }
        var index = 0
        while index < words.count {
            let word = words[index]
            if valueOptions.contains(word) {
                index += 2
                continue
            }
            if word.hasPrefix("-") {
                index += 1
                continue
            }
            if !word.hasPrefix(user + ":") {
                guard !word.contains(":") else { throw UsageError("'\(word)' is not one of your jobs: with --user, name a job of yours without a user") }
                words[index] = user + ":" + word
            }
            // jobd reads the journal for the user, who may not read jobd's entries there.
            return [command] + words + (command == "logs" ? ["--from-jobd"] : [])
        }
        // No job named: `status` lists the user's jobs; the others say what they lack.
        return command == "status" ? ["list"] + words : [command] + words
    }

    /// `USER:JOB` for the caller's `job`, named with or without their user name (`edit`, `cat`);
    /// exit 64 for a job named with another user's.
    static func ownName(_ job: String, user: String) throws -> String {
        let own = job.hasPrefix(user + ":") ? String(job.dropFirst(user.count + 1)) : job
        guard !own.contains(":") else {
            var standardError = StandardError()
            print("jobctl: '\(job)' is not one of your jobs: name a job of yours without a user", to: &standardError)
            throw ExitCode(64)
        }
        return user + ":" + own
    }

    /// The caller's user name, as `USER:` of their jobs.
    static var userName: String {
        getpwuid(getuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? String(getuid())
    }

    struct UsageError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }
}

import ArgumentParser
import FoundationEssentials
import Glibc
import JobdConfig
import JobdImport
import SystemPackage

/// The I/O of `jobctl import`: reading the input, the user database, and writing or printing the
/// job files after reading each back as `jobctl check` would.
package enum ImportFiles {
    static func read(_ path: String) throws -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    /// The file's bytes as they are (a crontab is cut into lines by its bytes).
    static func readBytes(_ path: String) throws -> [UInt8] {
        do {
            if path == "-" { return try readStandardInput() }
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            var standardError = StandardError()
            print("jobctl: cannot read \(path): \(describe(error))", to: &standardError)
            throw ExitCode(1)
        }
    }

    /// All of standard input, up to its end.
    private static func readStandardInput() throws(StandardInputError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try FileDescriptor.standardInput.read(into: $0) }
            } catch {
                throw StandardInputError(errno: (error as? Errno)?.rawValue ?? EIO)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    private struct StandardInputError: Error, CustomStringConvertible {
        var errno: Int32
        var description: String { String(cString: strerror(errno)) }
    }

    /// What went wrong with a file, as the system says it (`strerror`), and the file it happened
    /// to where that is another one (a parent directory).
    static func describe(_ error: any Error) -> String {
        guard let fileError = error as? CocoaError, let posix = fileError.underlying as? POSIXError else { return "\(error)" }
        return String(cString: strerror(posix.code.rawValue)) + (fileError.filePath.map { " (\($0))" } ?? "")
    }

    static func account(uid: uid_t) -> CrontabAccount.Account? {
        guard let entry = getpwuid(uid) else { return nil }
        return CrontabAccount.Account(uid: uid, name: String(cString: entry.pointee.pw_name))
    }

    static func account(named name: String) -> CrontabAccount.Account? {
        CronTable.account(named: name).map { CrontabAccount.Account(uid: $0.uid, name: name) }
    }

    @Sendable static func homeDirectory(of user: String) -> String? {
        guard let entry = getpwnam(user) else { return nil }
        return String(cString: entry.pointee.pw_dir)
    }

    /// Where a user crontab comes from, for ``CrontabAccount``: standard input and who runs
    /// jobctl, or the file's owner and, when its directory is cron's spool, the account it names.
    static func crontabSource(_ path: String) throws -> CrontabAccount.Source {
        if path == "-" {
            let uid = getuid()
            return .standardInput(invoker: account(uid: uid) ?? CrontabAccount.Account(uid: uid, name: "\(uid)"))
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            var standardError = StandardError()
            print("jobctl: cannot read \(path): \(String(cString: strerror(errno)))", to: &standardError)
            throw ExitCode(1)
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let spoolName = realPath(directory) == CrontabAccount.spoolDirectory ? url.lastPathComponent : nil
        return .file(path: path, ownerUID: status.st_uid, owner: account(uid: status.st_uid),
                     spoolName: spoolName, spoolAccount: spoolName.flatMap(account(named:)))
    }

    /// `path` with every link, `.` and `..` resolved, as `realpath(3)`; `nil` when it does not resolve.
    static func realPath(_ path: String) -> String? {
        realpath(path, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        }
    }

    /// Whether a job file that says it was imported from `recorded` is `source`'s own: the same
    /// file however each was named (`x.cron`, `./x.cron`, `/etc/x.cron`), so that `--force` renews
    /// it; another file is a clash of names.
    static func isSameSource(_ recorded: String, _ source: String) -> Bool {
        recorded == source || realPath(recorded).map { $0 == realPath(source) } == true
    }

    /// The source a job file says it was imported from (its first comment, as
    /// ``CrontabImporter`` and ``TimerImporter`` write it), if it says so.
    static func importedSource(of text: String) -> String? {
        guard let first = text.split(separator: "\n", maxSplits: 1).first, first.hasPrefix("# Imported by jobctl import "),
              let from = first.firstRange(of: " from ") else { return nil }
        let rest = first[from.upperBound...]
        let end = rest.firstRange(of: ", line ")?.lowerBound ?? rest.firstRange(of: " and ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// Writes each job to `DIRECTORY/NAME.job`, or prints them all. Each is read back with jobd's
    /// reader first (``JobFile/problems(path:)``): one that does not read back as meant is neither
    /// written nor printed, and neither is one whose file exists, unless `force`. Returns how many
    /// were written (or printed) and whether any was not.
    /// A job whose file exists and was imported from another source than `source` (another
    /// crontab or timer: a clash of names across imports) is never overwritten, `force` or not;
    /// any such clash is reported before anything is written, and nothing is.
    static func emit(_ jobs: [JobFile], into directory: String?, force: Bool, source: String? = nil) -> (written: Int, failed: Bool) {
        var standardError = StandardError()
        var failed = false
        var written = 0
        if let directory, let source {
            let clashes = jobs.compactMap { job -> String? in
                let path = directory + "/" + job.name + ".job"
                guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                      let from = importedSource(of: text), !isSameSource(from, source) else { return nil }
                return "\(path): error: job name clash: the file was imported from \(from), not from \(source)"
            }
            if !clashes.isEmpty {
                for clash in clashes { print(clash, to: &standardError) }
                print("\(source): nothing written: name the jobs apart (jobctl import cron --prefix), or remove the other import's files",
                      to: &standardError)
                return (0, true)
            }
        }
        for job in jobs {
            let path = (directory.map { $0 + "/" } ?? "") + job.name + ".job"
            let problems = job.problems(path: path)
            if !problems.isEmpty {
                for problem in problems { print("\(path): not written: \(problem)", to: &standardError) }
                failed = true
                continue
            }
            guard let directory else {
                if written > 0 { print() }
                print("# \(job.name).job")
                print(job.text, terminator: "")
                written += 1
                continue
            }
            if !force, FileManager.default.fileExists(atPath: path) {
                print("\(path): error: the file exists and was not overwritten (--force overwrites it)", to: &standardError)
                failed = true
                continue
            }
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try AtomicFile.replace(path, with: job.text, mode: 0o644, durable: true)
                written += 1
            } catch {
                print("\(path): cannot write: \(describe(error))", to: &standardError)
                failed = true
            }
        }
        return (written, failed)
    }
}

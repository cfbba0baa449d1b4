import ArgumentParser
import Foundation
import Glibc
import JobdConfig
import JobdImport

/// The I/O of `jobctl import`: reading the input, the user database, and writing or printing the
/// job files after checking them as `jobctl check` would.
enum ImportFiles {
    static func read(_ path: String) throws -> String {
        do {
            if path == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
            return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        } catch {
            var standardError = StandardError()
            print("jobctl: cannot read \(path): \(error.localizedDescription)", to: &standardError)
            throw ExitCode(1)
        }
    }

    static func currentUser() -> String? {
        guard let entry = getpwuid(getuid()) else { return nil }
        return String(cString: entry.pointee.pw_name)
    }

    @Sendable static func homeDirectory(of user: String) -> String? {
        guard let entry = getpwnam(user) else { return nil }
        return String(cString: entry.pointee.pw_dir)
    }

    /// Writes each job to `DIRECTORY/NAME.job`, or prints them all; checks each with jobd's reader.
    /// Returns whether any failed the check or could not be written.
    static func emit(_ jobs: [JobFile], into directory: String?, force: Bool) -> Bool {
        var standardError = StandardError()
        var failed = false
        for (index, job) in jobs.enumerated() {
            let path = (directory.map { $0 + "/" } ?? "") + job.name + ".job"
            if case .failure(let errors) = JobFileReader.read(name: job.name, path: path, text: job.text) {
                print(errors.description, to: &standardError)
                failed = true
            }
            guard let directory else {
                if index > 0 { print() }
                print("# \(job.name).job")
                print(job.text, terminator: "")
                continue
            }
            if !force, FileManager.default.fileExists(atPath: path) {
                print("\(path): exists; not overwritten (--force overwrites)", to: &standardError)
                failed = true
                continue
            }
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try Data(job.text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                print("\(path): cannot write: \(error.localizedDescription)", to: &standardError)
                failed = true
            }
        }
        return failed
    }
}

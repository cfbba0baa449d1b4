import Foundation
import JobdTestKit
import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile

/// `OnFailure=` and `OnSuccess=` must name a job that has a file: a misspelt one is an error at load,
/// with the file, the line and the nearest job's name, not a `run.skip` found on the day of the failure.
@Suite struct JobReferenceTests {
    static let path = "/etc/jobd/jobs.d/backup.job"

    func definition(_ keys: String, name: String = "backup") throws -> JobDefinition {
        try JobFileReader.read(name: name, path: "/etc/jobd/jobs.d/\(name).job", text: "[Job]\nExecStart=/bin/false\nOnStartupSec=1\n" + keys).get()
    }

    /// (keys, the names there are, the expected errors as `LINE: MESSAGE | HINT`).
    static let cases: [(String, Set<String>, [String])] = [
        ("OnFailure=notify\n", ["backup", "notify"], []),
        ("OnFailure=notfy\n", ["backup", "notify"],
         ["4: OnFailure=: no job is named 'notfy' (there is no notfy.job) | did you mean 'notify'?"]),
        ("OnSuccess=report\nOnFailure=notify page\n", ["backup", "notify", "report"],
         ["5: OnFailure=: no job is named 'page' (there is no page.job) | name a job by its file's name in jobs.d without .job, or create page.job"]),
        ("OnSuccess=Report\n", ["backup", "report"],
         ["4: OnSuccess=: no job is named 'Report' (there is no Report.job) | did you mean 'report'?"]),
        // A job may name itself, and a reference written as a file name counts as the job.
        ("OnFailure=backup notify.job\n", ["backup", "notify"], []),
        ("OnFailure=a\nOnFailure=\nOnFailure=notify\n", ["backup", "notify"], []),
    ]

    @Test(arguments: cases.indices)
    func unknownReferencesAreErrorsWithTheirLine(index: Int) throws {
        let (keys, names, expected) = Self.cases[index]
        let errors = JobReference.unknownReferences(in: [try definition(keys)], names: names)["backup"] ?? []
        #expect(errors.map { "\($0.line.map(String.init) ?? "-"): \($0.message) | \($0.hint ?? "")" } == expected, "\(keys)")
        #expect(errors.allSatisfy { $0.file == Self.path })
    }

    /// Where a reference stands is not part of the job: a line added above it does not change the
    /// definition (a reload keeps the job's owner), while its lines still follow the file.
    @Test func referenceLinesAreNotPartOfTheDefinition() throws {
        let before = try definition("OnFailure=notfy\n")
        let after = try definition("# a comment\nOnFailure=notfy\n")
        #expect(before == after)
        #expect(JobReference.unknownReferences(in: [after], names: ["backup"])["backup"]?.first?.line == 5)
    }

    /// jobd's own read (start and reload) and `jobctl check` both find it, and a reload that removes
    /// a job another still names reports the other broken, though its file did not change.
    @Test func aReadBreaksTheJobThatNamesAMissingJob() throws {
        let config = try TemporaryConfiguration(jobs: [
            "backup": "[Job]\nOnStartupSec=1\nExecStart=/bin/true\nOnFailure=notify\n",
            "notify": "[Job]\nExecStart=/bin/true\n",
        ])
        let directory = JobDirectory(path: config.path)
        var cache = JobFileCache()
        let first = directory.read(using: &cache)
        #expect(first.jobs.map(\.name) == ["backup", "notify"] && first.broken.isEmpty)
        try FileManager.default.removeItem(atPath: config.path + "/jobs.d/notify.job")
        let second = directory.read(using: &cache)
        #expect(second.jobs.isEmpty)
        #expect(second.broken.map(\.name) == ["backup"])
        #expect(second.broken.first?.errors.map(\.description) == [
            "\(config.path)/jobs.d/backup.job:4: error: OnFailure=: no job is named 'notify' (there is no notify.job)\n"
                + "\(config.path)/jobs.d/backup.job:4: note: name a job by its file's name in jobs.d without .job, or create notify.job",
        ])
        guard case .failure(let errors) = directory.loadConfiguration() else {
            Issue.record("jobctl check's load accepted a job naming no job")
            return
        }
        #expect(errors.errors.map(\.line) == [4])
        // Checked on its own, the file may name the jobs of jobs.d and of the other files checked.
        let elsewhere = try TemporaryConfiguration(jobs: ["notify": "[Job]\nExecStart=/bin/true\n"])
        guard case .success = JobDirectory(path: config.path).loadConfiguration(
            files: [config.path + "/jobs.d/backup.job", elsewhere.path + "/jobs.d/notify.job"]) else {
            Issue.record("a reference to a file checked beside it was refused")
            return
        }
    }
}

/// ExecStart='s specifier error names the specifier it found and what a job has instead.
@Suite struct SpecifierErrorTests {
    static let cases: [(String, String, String)] = [
        ("/bin/echo %n", "the specifier '%n' is not supported by jobd", "$JOBD_JOB holds the job's name; write '%%' for a literal percent sign"),
        ("/bin/echo %H", "the specifier '%H' is not supported by jobd", "write '%%' for a literal percent sign"),
        ("/bin/echo %h", "the specifier '%h' is not supported by jobd", "$HOME holds the run's user's home; write '%%' for a literal percent sign"),
        ("/bin/echo 100%", "a lone '%' in ExecStart=", "write '%%' for a literal percent sign"),
    ]

    @Test(arguments: cases.indices) func theSpecifierIsNamed(index: Int) throws {
        let (command, message, hint) = Self.cases[index]
        let result = JobFileReader.read(name: "j", path: "/j.job", text: "[Job]\nOnStartupSec=1\nExecStart=\(command)\n")
        guard case .failure(let errors) = result, let error = errors.errors.first else {
            Issue.record("\(command) was accepted")
            return
        }
        #expect(error.message.hasSuffix(message), "\(error.message)")
        #expect(error.hint == hint)
    }
}

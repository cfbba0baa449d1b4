import Foundation

/// A configuration directory in a fresh temporary directory, removed when the value goes away.
package final class TemporaryConfiguration: @unchecked Sendable {
    package let path: String

    /// Creates `DIR/jobs.d/NAME.job` for each of `jobs` (name → file contents).
    package init(jobs: [String: String] = [:]) throws {
        path = NSTemporaryDirectory() + "jobd-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path + "/jobs.d", withIntermediateDirectories: true)
        for (name, contents) in jobs { try write(job: name, contents) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    package func write(job name: String, _ contents: String) throws {
        try contents.write(toFile: path + "/jobs.d/\(name).job", atomically: true, encoding: .utf8)
    }

    package func remove(job name: String) throws {
        try FileManager.default.removeItem(atPath: path + "/jobs.d/\(name).job")
    }
}

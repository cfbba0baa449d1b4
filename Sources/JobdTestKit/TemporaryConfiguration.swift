import Foundation

/// A configuration directory in a fresh temporary directory, removed when the value goes away.
public final class TemporaryConfiguration: @unchecked Sendable {
    public let path: String

    /// Creates `DIR/jobs.d/NAME.job` for each of `jobs` (name → file contents).
    public init(jobs: [String: String] = [:]) throws {
        path = NSTemporaryDirectory() + "jobd-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path + "/jobs.d", withIntermediateDirectories: true)
        for (name, contents) in jobs { try write(job: name, contents) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    public func write(job name: String, _ contents: String) throws {
        try contents.write(toFile: path + "/jobs.d/\(name).job", atomically: true, encoding: .utf8)
    }

    public func remove(job name: String) throws {
        try FileManager.default.removeItem(atPath: path + "/jobs.d/\(name).job")
    }
}

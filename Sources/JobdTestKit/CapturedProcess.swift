import Foundation

/// A helper process run to completion, with what it printed.
///
/// Output goes to temporary files, not pipes, so a chatty process cannot block on a full pipe while
/// the caller waits for it to exit.
package struct CapturedProcess: Sendable {
    /// The exit status, or the signal number when ``exitedNormally`` is false.
    package let status: Int32
    /// Whether the process exited (rather than being killed by a signal).
    package let exitedNormally: Bool
    package let standardOutput: String
    package let standardError: String

    /// Runs `executable` with `arguments` and waits for it.
    /// - Parameter environment: the whole environment of the process; `nil` inherits this process's.
    package static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil
    ) throws -> CapturedProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jobd-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout"), errURL = directory.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        defer { try? out.close(); try? err.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        return CapturedProcess(
            status: process.terminationStatus, exitedNormally: process.terminationReason == .exit,
            standardOutput: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        )
    }
}

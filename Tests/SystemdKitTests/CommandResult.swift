import Foundation
import Testing

/// The package root, found from this file's path so tests work from any working directory.
let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// What a helper command printed and how it ended.
struct CommandResult {
    var status: Int32
    var output: String
    var error: String
}

/// Runs `executable` to completion. Output goes to files, not pipes, so a chatty command cannot
/// block on a full pipe while the test waits for it to exit.
func runCommand(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> CommandResult {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jobd-command-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outURL = directory.appendingPathComponent("out"), errURL = directory.appendingPathComponent("err")
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
    return CommandResult(
        status: process.terminationStatus,
        output: try String(contentsOf: outURL, encoding: .utf8),
        error: try String(contentsOf: errURL, encoding: .utf8)
    )
}

import Foundation

/// A process run to completion with its standard input given as bytes (or `/dev/null`), for
/// comparing what cron would run with what jobd runs.
struct ProcessRun: Equatable, CustomStringConvertible {
    var status: Int32
    var output: String
    /// Standard error without the shell's line numbers, which differ when the job's script starts
    /// with a here-document for cron's `%` input.
    var errors: String

    static func run(_ argv: [String], environment: [String: String], directory: String, input: [UInt8]?) throws -> ProcessRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("jobd-import-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let errorOutput = output.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: errorOutput.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorOutput) }
        let handle = try FileHandle(forWritingTo: output)
        let errorHandle = try FileHandle(forWritingTo: errorOutput)
        process.standardOutput = handle
        process.standardError = errorHandle
        let pipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : pipe
        try process.run()
        if let input {
            // Small enough for the pipe's buffer, so the write cannot block; a command that
            // exits without reading is no error (cron's writer ignores it too).
            signal(SIGPIPE, SIG_IGN)
            try? pipe.fileHandleForWriting.write(contentsOf: Data(input))
            try? pipe.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        try handle.close()
        try errorHandle.close()
        let errors = String(decoding: try Data(contentsOf: errorOutput), as: UTF8.self)
        let lineNumbers = try NSRegularExpression(pattern: "(sh: |line )[0-9]+")
        return ProcessRun(status: process.terminationStatus,
                          output: String(decoding: try Data(contentsOf: output), as: UTF8.self),
                          errors: lineNumbers.stringByReplacingMatches(
                            in: errors, range: NSRange(errors.startIndex..., in: errors), withTemplate: "$1N"))
    }

    var description: String { "status \(status), output \(output.debugDescription), errors \(errors.debugDescription)" }
}

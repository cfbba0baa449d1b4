import Foundation
import JobdTestKit
import Testing

/// Runs the real `systemd-analyze calendar` as the reference the calendar code must match.
///
/// When the binary is missing, tests that need it fail if `CI=true` and otherwise skip with a
/// message on standard error.
enum SystemdAnalyze {
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/bin"] {
            let candidate = "\(directory)/systemd-analyze"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }()

    /// Whether the reference can run; cancels the test loudly otherwise, and fails it under CI.
    static func isAvailable(for test: String) throws -> Bool {
        if executable == nil { try Requirement.unmet("\(test) needs systemd-analyze (systemd 252), not found in PATH") }
        return true
    }

    struct Run {
        var stdout: String
        var stderr: String
        var status: Int32
    }

    /// `TZ=<tz> systemd-analyze calendar --iterations=N --base-time=B -- EXPR...`
    static func calendar(_ expressions: [String], iterations: Int, baseTime: String?, timeZone: String) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable!)
        var arguments = ["calendar", "--iterations=\(iterations)"]
        if let baseTime {
            arguments.append("--base-time=\(baseTime)")
        }
        process.arguments = arguments + ["--"] + expressions
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = timeZone
        environment["SYSTEMD_COLORS"] = "0"
        environment["SYSTEMD_PAGER"] = "cat"
        environment["LC_ALL"] = "C"
        process.environment = environment
        // Files rather than pipes: nothing can fill up and block the child.
        let directory = FileManager.default.temporaryDirectory
        let outputURL = directory.appendingPathComponent("jobd-calendar-\(UUID().uuidString).out")
        let errorURL = directory.appendingPathComponent("jobd-calendar-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
        }
        let outputHandle = try FileHandle(forWritingTo: outputURL)
        let errorHandle = try FileHandle(forWritingTo: errorURL)
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        try process.run()
        process.waitUntilExit()
        try outputHandle.close()
        try errorHandle.close()
        return Run(
            stdout: try String(contentsOf: outputURL, encoding: .utf8),
            stderr: try String(contentsOf: errorURL, encoding: .utf8),
            status: process.terminationStatus)
    }

    /// Splits stdout into one block per expression: `nil` for an expression systemd rejected (it
    /// prints nothing for it, so two separators follow each other), otherwise its lines.
    static func blocks(of stdout: String, count: Int) -> [[String]?] {
        var lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" {
            lines.removeLast()
        }
        var result: [[String]?] = []
        var index = 0
        for expression in 0..<count {
            var block: [String] = []
            while index < lines.count && !lines[index].isEmpty {
                block.append(lines[index])
                index += 1
            }
            // Skip the separator printed between expressions.
            if expression < count - 1 {
                index += 1
            }
            result.append(block.isEmpty ? nil : block)
        }
        return result
    }
}

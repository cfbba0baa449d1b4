package import Foundation

/// A built jobd (or jobctl) started as a real process, whose stderr lines a test can await.
///
/// Waiting is on events (a line arriving, the process exiting); the bounds only turn a hang into
/// a failure with the output so far.
package final class DaemonProcess: @unchecked Sendable {
    package let process = Process()
    private var scratch: [String] = []
    private let output = AwaitableLog<String>()
    private let exit = AwaitableLog<Int32>()

    /// The directory `swift build` put the products in: the test bundle's own.
    package static var productsDirectory: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (executable as NSString).deletingLastPathComponent
    }

    /// The package's root directory, for example configurations and scripts.
    package static func packageRoot(file: StaticString = #filePath) -> String {
        var url = URL(fileURLWithPath: "\(file)")
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
        }
        return FileManager.default.currentDirectoryPath
    }

    /// Starts `product` (`jobd` by default) with `arguments`; its stdout and stderr are both collected.
    /// A jobd whose environment names a fault (`JOBD_FAULT_…`) is the tests' own build, `jobd-faults`,
    /// which installs it: the shipped jobd has no such switch.
    package convenience init(
        product: String = "jobd", arguments: [String], environment: [String: String]? = nil,
        keeping keep: @escaping @Sendable (String) -> Bool = { _ in true }
    ) throws {
        let faulty = product == "jobd" && (environment ?? [:]).keys.contains { $0.hasPrefix(Self.faultPrefix) }
        try self.init(absolutePath: Self.productsDirectory + "/" + (faulty ? "jobd-faults" : product), arguments: arguments,
                      environment: environment, keeping: keep)
    }

    /// What the variables of `jobd-faults`' faults begin with (Tests/jobd-faults).
    package static let faultPrefix = "JOBD_FAULT_"

    /// Starts the program at `absolutePath`; its stdout and stderr are both read, and the lines
    /// that `keep` accepts are collected (a test of a job that writes a lot keeps only events).
    package init(
        absolutePath: String, arguments: [String], environment: [String: String]? = nil,
        keeping keep: @escaping @Sendable (String) -> Bool = { _ in true }
    ) throws {
        process.executableURL = URL(fileURLWithPath: absolutePath)
        process.arguments = arguments
        // By default the test's own environment, less anything that would tie the daemon to the
        // service manager the tests themselves may run under.
        var env = environment ?? ProcessInfo.processInfo.environment.filter {
            !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID"].contains($0.key)
        }
        // These tests read stderr; a journald on the machine must not take the lines away.
        if env["JOBD_LOG_TARGET"] == nil { env["JOBD_LOG_TARGET"] = "stderr" }
        // And every level of them: the tests wait for the owners' and timers' debug-level events.
        if env["JOBD_LOG_LEVEL"] == nil { env["JOBD_LOG_LEVEL"] = "debug" }
        // Each daemon its own runtime and state directories (unless the test names them): never
        // the machine's /run/jobd or /var/lib/jobd, and never another test's socket.
        for variable in ["RUNTIME_DIRECTORY", "STATE_DIRECTORY"] where env[variable] == nil {
            let directory = NSTemporaryDirectory() + "jobd-\(variable.lowercased())-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            env[variable] = directory
            scratch.append(directory)
        }
        // Users' jobs beside the state directory jobd is given, so that a restart on it keeps them.
        if env["JOBD_SPOOL_DIRECTORY"] == nil {
            let named = arguments.firstIndex(of: "--state-dir").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
            env["JOBD_SPOOL_DIRECTORY"] = (named ?? env["STATE_DIRECTORY"] ?? NSTemporaryDirectory()) + "/spool"
        }
        process.environment = env
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let exit = self.exit
        process.terminationHandler = { process in
            exit.append(contentsOf: [process.terminationReason == .uncaughtSignal
                ? 128 + process.terminationStatus : process.terminationStatus])
            exit.close()
        }
        try process.run()
        let handle = pipe.fileHandleForReading
        let output = self.output
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                var lines: [String] = []
                var start = pending.startIndex
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    lines.append(String(decoding: pending[start..<newline], as: UTF8.self))
                    start = newline + 1
                }
                // Trimmed once per chunk, not once per line: a daemon that logs a lot stays cheap to read.
                pending.removeSubrange(pending.startIndex..<start)
                output.append(contentsOf: lines.filter(keep))
            }
            if !pending.isEmpty { output.append(contentsOf: [String(decoding: pending, as: UTF8.self)]) }
            output.close()
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        for directory in scratch { try? FileManager.default.removeItem(atPath: directory) }
    }

    package var pid: Int32 { process.processIdentifier }

    /// Every line so far.
    package var lines: [String] { output.all }

    /// Waits for a line that satisfies `predicate`, starting at line index `from`; returns its index.
    @discardableResult
    package func waitForLine(
        from start: Int = 0, timeout: Duration = .seconds(30), _ description: String,
        where predicate: (String) -> Bool
    ) throws -> Int {
        try output.waitFor(from: start, timeout: timeout, description, where: predicate)
    }

    /// Waits for the event `kind` (a `JOBD_EVENT=` value) with the given fields.
    @discardableResult
    package func waitForEvent(
        _ kind: String, fields: [String: String] = [:], from start: Int = 0, timeout: Duration = .seconds(30)
    ) throws -> Int {
        try waitForLine(from: start, timeout: timeout, "\(kind) \(fields)") { line in
            LogLine(line).matches(event: kind, fields: fields)
        }
    }

    package func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit and for its output to end; returns the exit status
    /// (or 128 + the signal that killed it).
    package func waitForExit(timeout: Duration = .seconds(30)) throws -> Int32 {
        let index = try exit.waitFor(from: 0, timeout: timeout, "exit") { _ in true }
        try output.waitForClose(timeout: timeout)
        return exit.all[index]
    }

    /// Lines that are events of `kind`.
    package func events(_ kind: String) -> [LogLine] {
        lines.map(LogLine.init).filter { $0.field("JOBD_EVENT") == kind }
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

extension DaemonProcess {
    /// `jobctl run JOB --wait` answers once the run ended, but jobd's own log lines go through its
    /// log queue and may reach this process later: waits for the `run.exit` of each run jobctl's
    /// output names (`jobctl: run 3 of backup: …`), so that a test reads the whole run's log.
    package func waitForLoggedEnds(namedIn jobctlOutput: String) throws {
        for line in jobctlOutput.split(separator: "\n") where line.hasPrefix("jobctl: run ") {
            let words = line.dropFirst("jobctl: run ".count).split(separator: " ")
            guard words.count >= 3, UInt64(words[0]) != nil, words[1] == "of", words[2].hasSuffix(":") else { continue }
            try waitForEvent("run.exit", fields: ["JOB": String(words[2].dropLast()), "JOBD_RUN": String(words[0])])
        }
    }
}

import ArgumentParser
import Foundation
import Glibc
import JobdControl

extension Jobctl {
    /// `jobctl reload`: SIGHUP to the daemon, then wait for that reload's outcome. It is the unit's
    /// `ExecReload=`, so a rejected reload is a failed `systemctl reload`.
    public struct Reload: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Reload jobd's configuration and wait for the outcome.",
            discussion: """
                Exits 0 when every file loaded, 1 when any file had errors (printed as FILE:LINE: \
                error: ...): the valid changes apply, while a job file with errors keeps its job's \
                previous definition, a new one adds nothing, and a jobd.conf with errors keeps the \
                previous settings; 2 when no daemon runs.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Option(help: "The daemon's pid (default: read from jobd.pid in the runtime directory).")
        var pid: Int32?

        public init() {}

        public func run() throws {
            let pid = try self.pid ?? readPid()
            // Subscribe before the signal, so the outcome of this very reload cannot be missed.
            let (client, subscribed) = try Jobctl.ask(runtime, ControlRequest(command: .watchReload))
            guard subscribed.type == .reloadSubscribed else { throw ExitCode(ExitStatus.failure) }
            guard kill(pid, SIGHUP) == 0 else {
                var standardError = StandardError()
                print("jobctl: cannot signal jobd (pid \(pid)): \(String(cString: strerror(errno)))", to: &standardError)
                throw ExitCode(errno == ESRCH ? ExitStatus.noDaemon : ExitStatus.failure)
            }
            let result: ControlResponse?
            do {
                result = try client.receive()
            } catch {
                throw Jobctl.fail(error)
            }
            guard let result, result.type == .reloadResult, let report = result.reload else {
                var standardError = StandardError()
                print("jobctl: jobd did not report the reload's outcome\(result?.message.map { ": \($0)" } ?? "")", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            func names(_ list: [String]) -> String { list.isEmpty ? "" : " (\(list.joined(separator: ", ")))" }
            let summary = "generation \(report.generation): \(report.added.count) added\(names(report.added)), "
                + "\(report.changed.count) changed\(names(report.changed)), "
                + "\(report.removed.count) removed\(names(report.removed)), \(report.kept.count) kept"
            if report.accepted {
                print("jobd reloaded: " + summary)
                return
            }
            var standardError = StandardError()
            for error in report.errors { print(error, to: &standardError) }
            if report.added.isEmpty && report.changed.isEmpty && report.removed.isEmpty && report.kept.isEmpty {
                print("jobctl: reload rejected: \(report.errors.count) error(s); generation \(report.generation) keeps running",
                      to: &standardError)
            } else {
                // Each job file counts on its own: the valid changes apply, a broken file keeps its job's previous definition.
                print("jobd reloaded with errors: " + summary, to: &standardError)
                print("jobctl: reload incomplete: \(report.errors.count) error(s); the files with errors keep their previous "
                      + "definition (a new one adds nothing)", to: &standardError)
            }
            throw ExitCode(ExitStatus.failure)
        }

        private func readPid() throws -> Int32 {
            let path = runtime.directory + "/" + ControlProtocol.pidFileName
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                  let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 else {
                var standardError = StandardError()
                print("jobctl: jobd is not running: no pid in \(path)", to: &standardError)
                throw ExitCode(ExitStatus.noDaemon)
            }
            return pid
        }
    }
}

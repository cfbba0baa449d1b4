package import ArgumentParser
import Glibc
import JobdControl
import JobdSystem
import JobctlReports

extension Jobctl {
    /// `jobctl reload`: SIGHUP to the daemon, then wait for that reload's outcome. It is the unit's
    /// `ExecReload=`, so a rejected reload is a failed `systemctl reload`.
    package struct Reload: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "reload",
            abstract: "Reload jobd's configuration and wait for the outcome.",
            discussion: """
                Exits 0 when every file loaded, 1 when any file had errors (printed as FILE:LINE: \
                error: ...): the valid changes apply, while a job file with errors keeps its job's \
                previous definition, a new one adds nothing, and a jobd.conf with errors keeps the \
                previous settings; 2 when no daemon runs, the daemon is not --pid, or no outcome came \
                within --timeout; 4 when jobd refuses the caller (reload needs root). With --dry-run, \
                jobd reads the configuration as a reload would and says what the reload would do, \
                changing nothing: the jobs it would add, change (with the keys) and remove, each \
                one's next elapse after and before, any that would run at once and why, and the \
                errors; it exits as the reload would.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Option(help: "The pid jobd must have (systemd's $MAINPID): jobctl signals only the jobd that listens on the socket, and refuses if that is not this pid.")
        var pid: Int32?

        @Option(help: "How long to wait for the reload's outcome, in seconds.")
        var timeout: Int = 90

        @Flag(name: .customLong("dry-run"), help: "Say what a reload would do now, and change nothing.")
        var dryRun = false

        package init() {}

        /// The parent of `pid`'s parent (field 4 of `/proc/PID/stat`, twice), if it can be read.
        static func grandparent(of pid: Int32) -> Int32? {
            func parent(_ pid: Int32) -> Int32? {
                guard case .success(let text) = FileSystem.readTextFile("/proc/\(pid)/stat", limit: 4_096),
                      let close = text.lastIndex(of: ")") else { return nil }
                let fields = text[text.index(after: close)...].split(separator: " ")
                return fields.count > 1 ? Int32(fields[1]) : nil
            }
            return parent(pid).flatMap(parent)
        }

        package func run() throws {
            if dryRun { return try preview() }
            let seconds = max(timeout, 1)
            let deadline = ContinuousClock.now + .seconds(seconds)
            var standardError = StandardError()
            let client = try runtime.connect()
            // The pid the kernel says listens on the socket: a stale jobd.pid, or a wrong --pid,
            // never gets another process signalled.
            guard let daemonPid = client.daemonPid else {
                print("jobctl: cannot tell which process listens on jobd's socket; nothing signalled", to: &standardError)
                throw ExitCode(ExitStatus.noDaemon)
            }
            // Under jobd-keeper, systemd's $MAINPID is the keeper, jobd's grandparent (issue 36).
            if let pid, pid != daemonPid, Self.grandparent(of: daemonPid) != pid {
                print("jobctl: the jobd on \(runtime.directory)/\(ControlProtocol.socketName) is pid \(daemonPid), not \(pid); nothing signalled",
                      to: &standardError)
                throw ExitCode(ExitStatus.noDaemon)
            }
            /// The next response by the deadline; past it, exit 2 saying what did not come.
            func next(_ what: String) throws -> ControlResponse? {
                do {
                    return try client.receive(deadline: deadline)
                } catch where error.code == .timedOut {
                    print("jobctl: jobd (pid \(daemonPid)) did not \(what) within \(seconds) s", to: &standardError)
                    throw ExitCode(ExitStatus.noDaemon)
                } catch {
                    throw Jobctl.fail(error)
                }
            }
            // Subscribe before the signal, so the outcome of this very reload cannot be missed.
            do {
                try client.send(ControlRequest(command: .watchReload))
            } catch {
                throw Jobctl.fail(error)
            }
            let subscribed = try next("answer")
            guard let subscribed, subscribed.type == .reloadSubscribed else {
                print("jobctl: \(subscribed?.message ?? "jobd closed the connection without answering")", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            guard kill(daemonPid, SIGHUP) == 0 else {
                print("jobctl: cannot signal jobd (pid \(daemonPid)): \(String(cString: strerror(errno)))", to: &standardError)
                throw ExitCode(errno == ESRCH ? ExitStatus.noDaemon : ExitStatus.failure)
            }
            let result = try next("report the reload's outcome")
            guard let result, result.type == .reloadResult, let report = result.reload else {
                print("jobctl: jobd did not report the reload's outcome\(result?.message.map { ": \($0)" } ?? "")", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            func names(_ list: [String]) -> String { list.isEmpty ? "" : " (\(list.joined(separator: ", ")))" }
            let summary = "generation \(report.generation): \(report.added.count) added\(names(report.added)), "
                + "\(report.changed.count) changed\(names(report.changed)), "
                + "\(report.removed.count) removed\(names(report.removed)), \(report.kept) kept"
            if report.accepted {
                print("jobd reloaded: " + summary)
                // Errors of users' own jobs, which break those jobs alone.
                for error in report.errors { print(TerminalText.escapedLines(error), to: &standardError) }
                return
            }
            for error in report.errors { print(TerminalText.escapedLines(error), to: &standardError) }
            if report.added.isEmpty && report.changed.isEmpty && report.removed.isEmpty && report.kept == 0 {
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

        /// `--dry-run`: jobd's `reload-preview`, printed; exits 1 when the reload would.
        private func preview() throws {
            var standardError = StandardError()
            let (_, response) = try Jobctl.ask(runtime, ControlRequest(command: .reloadPreview))
            guard let preview = response.schedule else {
                print("jobctl: jobd did not answer with a reload preview (is it older than this jobctl?)", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            print(ScheduleText.reloadPreview(preview), terminator: "")
            for error in preview.errors { print(TerminalText.escapedLines(error), to: &standardError) }
            if !preview.accepted {
                print("jobctl: a reload now would fail: \(preview.errors.count) error(s)", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
        }
    }
}

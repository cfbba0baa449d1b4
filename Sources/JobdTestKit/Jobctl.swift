/// The built `jobctl`, run as a test runs it: against one daemon's runtime directory, optionally as
/// another user (dropped for real by setpriv: uid, gid and no supplementary groups), and, when the
/// daemon is given, returning only once jobd logged the end of every run jobctl's output names
/// (``DaemonProcess/waitForLoggedEnds(namedIn:)``), so that a test then reads the run's whole log.
package struct Jobctl {
    /// `--runtime-dir`, added to every command (`nil`: none, for commands such as `check`).
    package var runtime: String?
    /// The daemon whose logged run ends to wait for.
    package var daemon: DaemonProcess?
    /// jobctl's environment (`nil`: the test's own).
    package var environment: [String: String]?

    package static let plainEnvironment = ["NO_COLOR": "1", "PATH": "/usr/bin:/bin"]

    package init(runtime: String?, daemon: DaemonProcess? = nil, environment: [String: String]? = Jobctl.plainEnvironment) {
        self.runtime = runtime
        self.daemon = daemon
        self.environment = environment
    }

    /// Runs `jobctl ARGUMENTS [--runtime-dir RUNTIME]`; returns its exit status and its output
    /// (stdout and stderr, line by line).
    package func callAsFunction(
        _ arguments: [String], as user: (uid: UInt32, gid: UInt32)? = nil, timeout: Duration = .seconds(60)
    ) throws -> (Int32, String) {
        let command = arguments + (runtime.map { ["--runtime-dir", $0] } ?? [])
        let logged = daemon?.lines.count ?? 0
        let jobctl = DaemonProcess.productsDirectory + "/jobctl"
        let process = if let user {
            try DaemonProcess(absolutePath: "/usr/bin/setpriv",
                              arguments: ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", jobctl] + command,
                              environment: environment)
        } else {
            try DaemonProcess(absolutePath: jobctl, arguments: command, environment: environment)
        }
        let status = try process.waitForExit(timeout: timeout)
        let output = process.lines.joined(separator: "\n")
        try daemon?.waitForLoggedEnds(namedIn: output)
        // `run JOB --wait --quiet` names no run when it succeeds: its job's next end is the one.
        if let daemon, arguments.count >= 2, arguments[0] == "run", arguments.contains("--wait"), arguments.contains("--quiet") {
            try daemon.waitForEvent("run.exit", fields: ["JOB": arguments[1]], from: logged)
        }
        return (status, output)
    }
}

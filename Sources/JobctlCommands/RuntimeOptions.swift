import ArgumentParser
import FoundationEssentials
import JobdControl

/// Where jobctl finds the daemon: the same runtime directory jobd uses.
struct RuntimeOptions: ParsableArguments {
    @Option(name: .customLong("runtime-dir"),
            help: "jobd's runtime directory, with jobd.sock and jobd.pid (default: $RUNTIME_DIRECTORY, else /run/jobd).")
    var runtimeDirectory: String?

    var directory: String {
        runtimeDirectory ?? ControlProtocol.defaultRuntimeDirectory(environment: ProcessInfo.processInfo.environment)
    }

    /// Connects, or exits 2 saying that no daemon answers (or 4 when it refuses the caller).
    func connect() throws -> ControlClient {
        do {
            return try ControlClient(runtimeDirectory: directory)
        } catch {
            throw Jobctl.fail(error)
        }
    }
}

extension Jobctl {
    /// Exit statuses shared by every subcommand.
    enum ExitStatus {
        static let failure: Int32 = 1
        static let noDaemon: Int32 = 2
        /// `jobctl status JOB`: the job's last run failed (as `systemctl status` exits 3 for a unit not running).
        static let lastRunFailed: Int32 = 3
        /// jobd refused the caller (as systemctl exits 4 for insufficient privileges).
        static let permissionDenied: Int32 = 4
    }

    /// Prints `error` on stderr and returns the exit code that goes with it.
    static func fail(_ error: ControlError) -> ExitCode {
        var standardError = StandardError()
        switch error.code {
        case .noDaemon:
            print("jobctl: jobd is not running: \(error.message)", to: &standardError)
            return ExitCode(ExitStatus.noDaemon)
        case .refused:
            print("jobctl: \(error.message)", to: &standardError)
            if error.message.hasPrefix("cannot connect") {
                // The socket's mode kept us out before jobd could say why.
                print("jobctl: jobd answers root and its own user, and members of group \(ControlAccess.readersGroupName) may "
                      + "list and look at jobs: ask for your account to be added (adduser $USER \(ControlAccess.readersGroupName))",
                      to: &standardError)
            }
            return ExitCode(ExitStatus.permissionDenied)
        case .protocolError, .setupFailed:
            print("jobctl: \(error.message)", to: &standardError)
            return ExitCode(ExitStatus.failure)
        case .timedOut:
            print("jobctl: \(error.message)", to: &standardError)
            return ExitCode(ExitStatus.noDaemon)
        }
    }

    /// Sends `request` and returns the first response, turning an `error` response into exit 1.
    /// With `json`, an error is also printed on stdout as `{"error": …, "exitStatus": …}`, so that a
    /// script reading JSON gets JSON.
    static func ask(_ runtime: RuntimeOptions, _ request: ControlRequest, json: Bool = false) throws -> (ControlClient, ControlResponse) {
        do {
            let client = try runtime.connect()
            let response = try client.exchange(request)
            if response.type == .error {
                let message = response.message ?? "jobd reported an error"
                var standardError = StandardError()
                print("jobctl: \(message)", to: &standardError)
                if json { printJSONError(message, exitStatus: ExitStatus.failure) }
                throw ExitCode(ExitStatus.failure)
            }
            return (client, response)
        } catch let error as ControlError {
            let code = fail(error)
            if json { printJSONError(error.message, exitStatus: code.rawValue) }
            throw code
        }
    }

    /// Sends `request` and returns the first response, an `error` one too (for the caller to act
    /// on its code); no daemon, or one that refuses the caller, exits as ``fail(_:)`` says.
    static func exchange(_ runtime: RuntimeOptions, _ request: ControlRequest) throws -> (ControlClient, ControlResponse) {
        let client = try runtime.connect()
        do {
            return (client, try client.exchange(request))
        } catch {
            throw fail(error)
        }
    }

    /// An error, for `--json`: `{"error": …, "exitStatus": …}`.
    static func printJSONError(_ message: String, exitStatus: Int32) {
        printJSON { writer in
            writer.beginObject()
            writer.key("error")
            writer.string(message)
            writer.key("exitStatus")
            writer.integer(exitStatus)
            writer.endObject()
        }
    }

    /// Prints what `write` writes as `--json` has always printed it: pretty, keys sorted, `/` as it is.
    static func printJSON(_ write: (inout JSONWriter) -> Void) {
        var writer = JSONWriter(pretty: true)
        write(&writer)
        print(String(decoding: writer.bytes, as: UTF8.self))
    }
}

import FoundationEssentials
import Glibc
import JobdConfig

/// Colour for a terminal, as systemctl uses it: a failed result in red, a success in green. Never
/// when the output is not a terminal, or when `NO_COLOR` is set (no-color.org) or `TERM=dumb`.
package enum Color {
    package enum Stream { case standardOutput }

    package static func enabled(on stream: Stream) -> Bool { standardOutputEnabled }

    /// Worked out once: jobctl's environment and standard output stay as they are while it runs,
    /// and `jobctl list` asks for every row (building the environment each time was most of its time).
    private static let standardOutputEnabled: Bool = {
        let environment = ProcessInfo.processInfo.environment
        guard environment["NO_COLOR"].map(\.isEmpty) ?? true, environment["TERM"] != "dumb" else { return false }
        return isatty(STDOUT_FILENO) == 1
    }()

    /// `result` (a `JOBD_RESULT=` value), in red when it is a failure and colour is on.
    package static func result(_ result: String, on stream: Stream) -> String {
        enabled(on: stream) ? painted(result: result) : result
    }

    /// `result` in red when it is a failure, in green when a success, else as it is.
    static func painted(result: String) -> String {
        guard let known = RunResult(rawValue: result) else { return result }
        if known.isFailure { return "\u{1B}[0;1;31m\(result)\u{1B}[0m" }
        return known == .success ? "\u{1B}[0;32m\(result)\u{1B}[0m" : result
    }
}

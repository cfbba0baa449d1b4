/// The control protocol, version 1: JSON lines over a Unix stream socket.
///
/// A client sends one request line; jobd answers with one or more response lines and closes the
/// connection. Every message carries `"version": 1`; a request of another version gets an `error`.
/// A request line may be at most ``ControlProtocol/maximumRequestBytes`` long and must arrive within
/// ``ControlProtocol/requestTimeoutSeconds``; otherwise the connection gets an error, or is closed.
package enum ControlProtocol {
    package static let version = 1
    package static let maximumRequestBytes = 65_536
    package static let requestTimeoutSeconds = 5
    /// The socket's file name in the runtime directory.
    package static let socketName = "jobd.sock"
    /// The pid file's name in the runtime directory.
    package static let pidFileName = "jobd.pid"

    /// `$RUNTIME_DIRECTORY` (the first, if systemd set several) or `/run/jobd`: the same default for
    /// jobd and jobctl, so that they meet without options.
    package static func defaultRuntimeDirectory(environment: [String: String]) -> String {
        environment["RUNTIME_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) } ?? "/run/jobd"
    }
}

import Glibc
import Testing

/// The root of every suite that changes the process environment or starts helper processes. It is
/// serialized, and so are the suites nested in it (extensions in other files), so that no test
/// reads `NOTIFY_SOCKET` or `WATCHDOG_USEC` while another sets them, and no `setenv` races a spawn.
@Suite(.serialized) enum ProcessWideTests {}

/// Sets environment variables for the duration of `body`, then restores the previous values.
@discardableResult
func withEnvironment<R>(_ values: [String: String?], _ body: () throws -> R) rethrows -> R {
    let previous = values.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
    func apply(_ name: String, _ value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    for (name, value) in values { apply(name, value) }
    defer { for (name, value) in previous { apply(name, value) } }
    return try body()
}

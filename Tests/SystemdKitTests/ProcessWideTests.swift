import Foundation
import Glibc
import Testing

/// The root of every suite that changes the process environment or starts helper processes. It is
/// serialized, and so are the suites nested in it (extensions in other files), so that no test
/// reads `NOTIFY_SOCKET` or `WATCHDOG_USEC` while another sets them, and no `setenv` races a spawn.
@Suite(.serialized) enum ProcessWideTests {}

/// The suites that set environment variables (libsystemd reads `NOTIFY_SOCKET` and `WATCHDOG_*`
/// from the process environment) run only in a child process of their own, started by
/// ``EnvironmentSuitesTests``: there `setenv` races nothing, while in the test process it could race
/// the process spawns of other suites (undefined behaviour in glibc).
enum EnvironmentChild {
    static let variable = "JOBD_TEST_ENVIRONMENT_CHILD"
    static let isChild = ProcessInfo.processInfo.environment[variable] != nil
}

/// Sets environment variables for the duration of `body`, then restores the previous values. Only
/// in the environment child (see ``EnvironmentChild``).
@discardableResult
func withEnvironment<R>(_ values: [String: String?], _ body: () throws -> R) rethrows -> R {
    precondition(EnvironmentChild.isChild, "setenv only in the environment child process")
    let previous = values.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
    func apply(_ name: String, _ value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    for (name, value) in values { apply(name, value) }
    defer { for (name, value) in previous { apply(name, value) } }
    return try body()
}

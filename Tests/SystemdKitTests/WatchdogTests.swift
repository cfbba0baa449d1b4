import Glibc
import SystemdKit
import Testing

extension ProcessWideTests {
    @Suite(.enabled(if: EnvironmentChild.isChild, "runs in its own process: see EnvironmentSuitesTests"))
    struct WatchdogTests {
        @Test func unsetMeansNoWatchdog() throws {
            let interval = try withEnvironment(["WATCHDOG_USEC": nil, "WATCHDOG_PID": nil]) { try Watchdog.interval() }
            #expect(interval == nil)
        }

        @Test func intervalWithoutPidIsForThisProcess() throws {
            let interval = try withEnvironment(["WATCHDOG_USEC": "5000000", "WATCHDOG_PID": nil]) { try Watchdog.interval() }
            #expect(interval == .seconds(5))
        }

        @Test func intervalForThisPid() throws {
            let interval = try withEnvironment(["WATCHDOG_USEC": "1500", "WATCHDOG_PID": String(getpid())]) {
                try Watchdog.interval()
            }
            #expect(interval == .microseconds(1500))
        }

        @Test func intervalForAnotherPidIsNotOurs() throws {
            let interval = try withEnvironment(["WATCHDOG_USEC": "5000000", "WATCHDOG_PID": String(getpid() + 1)]) {
                try Watchdog.interval()
            }
            #expect(interval == nil)
        }

        @Test func malformedIntervalIsAnError() throws {
            let error = withEnvironment(["WATCHDOG_USEC": "soon", "WATCHDOG_PID": nil]) {
                #expect(throws: SystemdError.self) { try Watchdog.interval() }
            }
            #expect(error?.code == .watchdogInvalid)
        }
    }
}

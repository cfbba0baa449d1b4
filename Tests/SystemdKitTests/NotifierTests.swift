import Glibc
import SystemdKit
import Testing

extension ProcessWideTests {
    @Suite(.enabled(if: EnvironmentChild.isChild, "runs in its own process: see EnvironmentSuitesTests"))
    struct NotifierTests {
        @Test(arguments: [false, true])
        func sendsReadyAndStatusInOneDatagram(abstract: Bool) throws {
            let socket = try NotifySocket(abstract: abstract)
            let delivery = try withEnvironment(["NOTIFY_SOCKET": socket.address]) {
                try Notifier().send(.ready, .status("3 jobs scheduled"))
            }
            #expect(delivery == .sent)
            #expect(socket.receive() == "READY=1\nSTATUS=3 jobs scheduled")
            #expect(socket.receive() == nil)
        }

        @Test func reloadingCarriesMonotonicTimeInTheSameMessage() throws {
            let socket = try NotifySocket(abstract: true)
            var before = timespec()
            clock_gettime(CLOCK_MONOTONIC, &before)
            try withEnvironment(["NOTIFY_SOCKET": socket.address]) { try Notifier().send(.reloading) }
            var after = timespec()
            clock_gettime(CLOCK_MONOTONIC, &after)

            let message = try #require(socket.receive())
            let lines = message.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.first == "RELOADING=1")
            let usec = try #require(lines.last.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? UInt64($0.dropFirst(15)) : nil })
            let low = UInt64(before.tv_sec) * 1_000_000 + UInt64(before.tv_nsec) / 1_000
            let high = UInt64(after.tv_sec) * 1_000_000 + UInt64(after.tv_nsec) / 1_000
            #expect((low...high).contains(usec))
        }

        @Test func stoppingAndWatchdogHaveTheirExactBytes() throws {
            let socket = try NotifySocket(abstract: false)
            try withEnvironment(["NOTIFY_SOCKET": socket.address]) {
                try Notifier().send(.stopping)
                try Notifier().send(.watchdog)
                try Notifier().send(.reloading(monotonicUSec: 42), .extendTimeout(.seconds(2)))
            }
            #expect(socket.receive() == "STOPPING=1")
            #expect(socket.receive() == "WATCHDOG=1")
            #expect(socket.receive() == "RELOADING=1\nMONOTONIC_USEC=42\nEXTEND_TIMEOUT_USEC=2000000")
        }

        @Test func newlinesInStatusCannotInjectAssignments() throws {
            let socket = try NotifySocket(abstract: true)
            try withEnvironment(["NOTIFY_SOCKET": socket.address]) {
                try Notifier().send(.status("line one\nREADY=1\r\nend\0x"))
            }
            #expect(socket.receive() == "STATUS=line one READY=1  end x")
        }

        @Test func withoutNotifySocketReportsNotUnderSystemd() throws {
            let delivery = try withEnvironment(["NOTIFY_SOCKET": nil]) { try Notifier().send(.ready) }
            #expect(delivery == .notUnderSystemd)
        }

        @Test func aMissingSocketIsAnError() throws {
            let error = withEnvironment(["NOTIFY_SOCKET": "/tmp/jobd-no-such-notify-socket-\(getpid())"]) {
                #expect(throws: SystemdError.self) { try Notifier().send(.ready) }
            }
            #expect(error?.code == .notifyFailed)
            #expect(error?.errno == .ENOENT)
            #expect(error?.description.contains("NOTIFY_SOCKET") == true)
        }
    }
}

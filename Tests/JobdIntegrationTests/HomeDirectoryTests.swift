import Foundation
import JobdTestKit
import Testing

/// `WorkingDirectory=~`, as systemd reads it: the home directory of the run's user, looked up at
/// each start; `-~` when a missing one may mean `/`.
@Suite(.serialized) struct HomeDirectoryTests {
    @Test func aTildeIsTheRunsUsersHome() throws {
        let root = try #require(getpwuid(0)).pointee
        let rootHome = String(cString: root.pw_dir)
        let jobd = try FailureHandlingTests.Daemon(jobs: [
            "mine": "[Job]\nWorkingDirectory=~\nExecStart=/bin/pwd\n",
            // Debian's nobody has /nonexistent as its home: missing, so `-~` means `/`.
            "theirs": "[Job]\nUser=nobody\nWorkingDirectory=-~\nExecStart=/bin/pwd\n",
            "strict": "[Job]\nUser=nobody\nWorkingDirectory=~\nExecStart=/bin/pwd\n",
        ])
        #expect(try jobd.jobctl(["run", "mine", "--wait", "--quiet"]).0 == 0)
        #expect(jobd.process.events("run.output").filter { $0.field("JOB") == "mine" }.map(\.message) == [rootHome])
        #expect(try jobd.jobctl(["run", "theirs", "--wait", "--quiet"]).0 == 0)
        #expect(jobd.process.events("run.output").filter { $0.field("JOB") == "theirs" }.map(\.message) == ["/"])
        let (status, output) = try jobd.jobctl(["run", "strict", "--wait"])
        #expect(status == 203 && output.contains("could not start"), "a home nobody can enter is a failed start: \(output)")
    }
}

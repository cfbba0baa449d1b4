@testable import JobctlCommands
import Testing

/// `jobctl --user COMMAND [JOB]`: the command's own arguments, the job named `USER:JOB`.
@Suite struct UserScopeTests {
    @Test(arguments: [
        (["--user", "run", "backup", "--wait"], ["run", "alice:backup", "--wait"]),
        (["--user", "run", "--wait", "backup"], ["run", "--wait", "alice:backup"]),
        (["--user", "status", "alice:backup"], ["status", "alice:backup"]),
        (["--user", "status"], ["list"]),
        (["--user", "status", "--runtime-dir", "/run/x"], ["list", "--runtime-dir", "/run/x"]),
        (["--user", "logs", "-n", "5", "backup"], ["logs", "-n", "5", "alice:backup", "--from-jobd"]),
        (["--user", "list", "--failed"], ["list", "--failed"]),
        (["--user", "edit", "backup"], ["edit", "backup"]),
        (["--user", "disable", "backup"], ["disable", "alice:backup"]),
        (["--user", "import", "cron", "-"], ["import", "cron", "-", "--own"]),
    ])
    func theJobIsTheUsers(arguments: [String], expected: [String]) throws {
        #expect(try UserScope.arguments(arguments, user: "alice") == expected)
    }

    @Test func otherArgumentsAreLeftAlone() throws {
        #expect(try UserScope.arguments(["run", "backup"], user: "alice") == nil)
    }

    @Test func aCommandOrJobNotOfTheUsersIsAUsageError() {
        #expect(throws: UserScope.UsageError.self) { try UserScope.arguments(["--user", "reload"], user: "alice") }
        #expect(throws: UserScope.UsageError.self) { try UserScope.arguments(["--user"], user: "alice") }
        #expect(throws: UserScope.UsageError.self) { try UserScope.arguments(["--user", "import", "timer", "x.timer"], user: "alice") }
        #expect(throws: UserScope.UsageError.self) { try UserScope.arguments(["--user", "run", "bob:backup"], user: "alice") }
    }
}

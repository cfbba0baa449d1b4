import JobdConfig
import JobdPolicy
import Testing

/// Issue 37: a user's job may take at most `StopTimeoutMaxSec=` (20 s by default) to stop, so that
/// no user's run holds a stop (its own, a reload's or jobd's) for longer; the file's read decides
/// the value (`0` and `infinity` are both for ever), and the refusal names its line.
@Suite struct UserStopTimeoutTests {
    static func definition(_ line: String, bound: TimeSpan = DaemonSettings.defaultStopTimeoutMax) throws -> Result<JobDefinition, ConfigErrors> {
        var settings = DaemonSettings()
        settings.stopTimeoutMax = bound
        return UserJobStore(directory: "/nonexistent").definition(
            of: try UserJobPolicyTests.nobody(), job: "slow", path: "slow.job", text: "[Job]\nExecStart=/bin/true\n" + line + "\n",
            names: ["slow"], bounds: UserJobPolicy.Bounds(settings: settings, systemMaximum: 10_000))
    }

    @Test(arguments: ["TimeoutStopSec=infinity", "TimeoutStopSec=0", "TimeoutStopSec=21s", "TimeoutStopSec=1min"])
    func aUsersTimeoutStopSecAboveTheBoundIsRefusedWithItsLine(_ line: String) throws {
        guard case .failure(let failure) = try Self.definition(line) else {
            Issue.record("\(line) was taken")
            return
        }
        #expect(failure.errors.map(\.line) == [3])
        #expect(failure.errors.first?.message.hasSuffix("a user's job may take at most 20s to stop (StopTimeoutMaxSec= in jobd.conf)") == true,
                "\(failure.errors)")
    }

    @Test func aUsersTimeoutStopSecUpToTheBoundIsTaken() throws {
        #expect(try Self.definition("TimeoutStopSec=20s").get().stopTimeout == .seconds(20))
        #expect(try Self.definition("").get().stopTimeout == JobDefinition.defaultStopTimeout)
        #expect(try Self.definition("TimeoutStopSec=1min", bound: .seconds(60)).get().stopTimeout == .seconds(60))
    }
}

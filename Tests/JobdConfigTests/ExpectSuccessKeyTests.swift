import JobdConfig
import Testing

/// `ExpectSuccessWithinSec=` (issue 40 item 3): a time span in systemd's syntax, as the other
/// `…Sec=` keys; empty, 0 or infinity mean no expectation; a user's own job may set it.
@Suite struct ExpectSuccessKeyTests {
    static func read(_ keys: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "backup", path: "/etc/jobd/jobs.d/backup.job", text: "[Job]\nExecStart=/bin/true\nOnCalendar=daily\n\(keys)\n")
    }

    @Test func aTimeSpanIsTheSwitchAndZeroEmptyOrInfinityIsNone() throws {
        #expect(try Self.read("ExpectSuccessWithinSec=1d 2h").get().expectSuccessWithin == .seconds(26 * 3600))
        #expect(try Self.read("ExpectSuccessWithinSec=90min").get().expectSuccessWithin == .seconds(5400))
        #expect(try Self.read("").get().expectSuccessWithin == nil, "none by default")
        for none in ["0", "", "infinity"] {
            #expect(try Self.read("ExpectSuccessWithinSec=25h\nExpectSuccessWithinSec=\(none)").get().expectSuccessWithin == nil, "\(none)")
        }
        let error = try #require(Self.read("ExpectSuccessWithinSec=daily").failure?.errors.first)
        #expect(error.line == 4 && error.description.contains("ExpectSuccessWithinSec=") && error.description.contains("25h"), "\(error)")
    }

    @Test func aUsersOwnJobMaySetIt() throws {
        #expect(try UserJobPolicyTests.errors("OnCalendar=daily\nExpectSuccessWithinSec=25h\n").isEmpty)
    }
}

extension Result {
    var failure: Failure? { if case .failure(let failure) = self { failure } else { nil } }
}

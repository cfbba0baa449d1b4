@testable import JobdRunner
import Testing

/// What a run leaves behind is read from /proc: a process already on its way out is not left behind.
struct ProcessStatTests {
    @Test func theFieldsCountFromTheLastParenthesisOfTheCommand() throws {
        let stat = try #require(ProcessStat("4242 (a (b) c) S 1 4240 4240 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5 0 0\n"))
        #expect(stat == ProcessStat(state: "S", group: 4_240, flags: 4_194_560))
        #expect(!stat.isGone)
        #expect(ProcessStat("4242 (x) S 1 4240 4240 0 -1 4194564 100")?.isGone == true, "PF_EXITING (0x4) is set")
        #expect(ProcessStat("4242 (x) Z 1 4240 4240 0 -1 4194560 100")?.isGone == true)
        #expect(ProcessStat("4242 x S 1") == nil)
    }

    @Test func aPendingSigkillIsSeenInEitherMask() {
        #expect(ProcessStat.killPending(status: "Name:\tsleep\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n"))
        #expect(ProcessStat.killPending(status: "SigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n"))
        #expect(!ProcessStat.killPending(status: "SigPnd:\t0000000000004000\nShdPnd:\t0000000000000000\n"), "SIGTERM only")
        #expect(!ProcessStat.killPending(status: "Name:\tsleep\n"))
    }
}

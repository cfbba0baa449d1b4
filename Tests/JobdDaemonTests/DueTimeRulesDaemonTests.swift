import JobdConfig
import JobdControl
import JobdScheduler
import Testing

/// The rows of jobd.job(5)'s "When a job is due" that pass through the daemon's core: a reload
/// that adds a job, and `jobctl enable` (issue 36). The other rows: JobdSchedulerTests' DueTimeRulesTests.
@Suite struct DueTimeRulesDaemonTests {
    typealias H = DaemonHarness

    static func cron(_ name: String, _ line: String) -> JobDefinition {
        try! JobFileReader.read(name: name, path: "/etc/jobd/jobs.d/\(name).job", text: "[Job]\nCron=\(line)\nExecStart=/bin/true\n").get()
    }

    // Row: the trial, a job added at 00:07:04 with a slot at 00:07:00.
    @Test func aReloadThatAddsAJobAfterItsSlotStartsNothing() {
        let daemon = H([H.job("other", every: 3600)])
        daemon.advance(.seconds(7 * 60 + 4))
        daemon.reload([H.job("other", every: 3600), Self.cron("a", "7 0 * * *")])
        #expect(daemon.started("a").isEmpty, "00:07:00 passed before the job existed")
        daemon.advance(.seconds(24 * 3600 - 5))
        #expect(daemon.started("a").isEmpty)
        daemon.advance(.seconds(1))
        #expect(daemon.started("a").count == 1, "at its next slot, 00:07:00 the next day")
    }

    // Row: `jobctl enable` after `disable` makes up no slot that came while the job was disabled.
    @Test func enableMakesUpNoSlotThatCameWhileDisabled() {
        let daemon = H([Self.cron("a", "0 * * * *")])
        daemon.advance(.seconds(30 * 60))
        daemon.control(.disable, "a")
        daemon.advance(.seconds(60 * 60))  // 01:30: the 01:00 slot came while the job was disabled
        #expect(daemon.skipReasons("a") == ["disabled"])
        daemon.control(.enable, "a")
        #expect(daemon.started("a").isEmpty, "enable starts nothing")
        daemon.advance(.seconds(30 * 60 - 1))
        #expect(daemon.started("a").isEmpty)
        daemon.advance(.seconds(1))
        #expect(daemon.started("a").count == 1, "at 02:00")
    }

    // Row: a job disabled when jobd starts, enabled later, makes up nothing either.
    @Test func aJobDisabledAtStartAndEnabledLaterMakesUpNothing() {
        let daemon = H([Self.cron("a", "0 * * * *")], disabled: ["a"])
        daemon.advance(.seconds(90 * 60))
        daemon.control(.enable, "a")
        #expect(daemon.started("a").isEmpty)
        daemon.advance(.seconds(30 * 60))
        #expect(daemon.started("a").count == 1)
    }
}

/// Issue 40 item 4: a run its timer started gets JOBD_ELAPSE_USEC, the scheduled instant it
/// serves, and its retries get the same; a run by hand gets none.
@Suite struct ElapseIdentityTests {
    typealias H = DaemonHarness

    @Test func aTimersRunAndItsRetriesServeOneElapse() throws {
        var job = DueTimeRulesDaemonTests.cron("a", "0 * * * *")
        job.restart.condition = .onFailure
        job.restart.delay = .seconds(1)
        let daemon = H([job])
        daemon.advance(.seconds(3600))  // 01:00
        let first = try #require(daemon.started("a").first)
        let hour = String(DaemonHarness.wallStart + 3_600_000_000)
        #expect(first.context["JOBD_ELAPSE_USEC"] == hour)
        daemon.advance(.seconds(2))
        daemon.end("a", .exited(1))
        daemon.advance(.seconds(1))
        let retry = try #require(daemon.started("a").last)
        #expect(retry.request.cause == .retry && retry.context["JOBD_ELAPSE_USEC"] == hour, "the retry serves the same elapse")
        daemon.end("a", .exited(0))
        daemon.control(.run, "a")
        #expect(daemon.started("a").last?.context["JOBD_ELAPSE_USEC"] == nil, "a run by hand serves no elapse")
    }
}

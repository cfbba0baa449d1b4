import JobdConfig
import JobdControl
@testable import JobdDaemon
import JobdFleet
import JobdScheduler
import Testing

/// The decisions the main loop takes for control requests and fleet claims, as values: which
/// requests are refused before anything happens, and what a claim's verdict makes of its run.
@Suite struct ControlDecisionTests {
    static let broken = JobdConfiguration.BrokenJob(
        name: "broken", path: "/etc/jobd/jobs.d/broken.job",
        errors: [ConfigError(file: "/etc/jobd/jobs.d/broken.job", line: 2, message: "no command")])
    static let generation = Generation(jobs: [DaemonHarness.job("a")], broken: [broken])

    /// (command, job, in flight, what the client is answered; `nil`: jobd goes on with it).
    static let refusals: [(ControlRequest.Command, String?, Bool, String?)] = [
        (.status, nil, false, nil), (.status, "nothing", false, nil), (.list, nil, false, nil), (.watchReload, nil, false, nil),
        (.run, "a", false, nil), (.stop, "a", false, nil), (.disable, "a", false, nil), (.enable, "a", false, nil),
        (.run, nil, false, "run needs a job"), (.stop, nil, false, "stop needs a job"),
        (.disable, nil, false, "disable needs a job"), (.enable, nil, false, "enable needs a job"),
        (.run, "nothing", false, "no such job: nothing"), (.disable, "nothing", true, "no such job: nothing"),
        // A reload removed the job while a run of it is in flight: it can still be stopped, not run.
        (.stop, "nothing", false, "no such job: nothing"), (.stop, "nothing", true, nil), (.run, "nothing", true, "no such job: nothing"),
        (.run, "broken", false, "no such job: broken: its file has errors (/etc/jobd/jobs.d/broken.job:2: error: no command)"),
    ]

    @Test(arguments: refusals.indices) func requestsOnAJobNameOneJobdHas(index: Int) {
        let (command, job, inFlight, expected) = Self.refusals[index]
        let refusal = ControlRequest(command: command, job: job).refusal(in: Self.generation) { _ in inFlight }
        #expect(refusal?.type == (expected == nil ? nil : .error), "\(Self.refusals[index])")
        #expect(refusal?.message == expected, "\(Self.refusals[index])")
    }

    /// (verdict, can the run still start, is jobd stopping, what becomes of the run, the node noted).
    static let verdicts: [(ClaimVerdict, Bool, Bool, FleetStatus.ClaimAnswer, String?)] = [
        (.won(token: 7), true, false, .start(token: 7), "n1"),
        (.won(token: 7), false, false, .decline(reason: "job-removed", releasesClaim: true), "n1"),
        (.won(token: 7), false, true, .decline(reason: "stopping", releasesClaim: true), "n1"),
        (.taken(by: "n2"), true, false, .decline(reason: "claimed-by n2", releasesClaim: false), "n2"),
        (.taken(by: "n2"), false, true, .decline(reason: "claimed-by n2", releasesClaim: false), "n2"),
        (.unavailable(reason: "fleet-unavailable"), true, false, .decline(reason: "fleet-unavailable", releasesClaim: false), nil),
        (.unavailable(reason: "clock-skew"), false, true, .decline(reason: "clock-skew", releasesClaim: false), nil),
    ]

    @Test(arguments: verdicts.indices) func aClaimsVerdictStartsOrDeclinesItsRun(index: Int) {
        let (verdict, startable, stopping, expected, node) = Self.verdicts[index]
        var status = FleetStatus()
        #expect(status.claimed(verdict, job: "report", node: "n1", startable: startable, stopping: stopping) == expected)
        #expect(status.lastNode["report"] == node, "who claimed the elapse, as jobctl status shows it")
    }
}

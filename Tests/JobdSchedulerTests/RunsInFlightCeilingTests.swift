import JobdConfig
import JobdScheduler
import JobdTimers
import Testing

/// Issue 39: each run in flight holds three of jobd's descriptors. Beyond what jobd's
/// `RLIMIT_NOFILE` allows, a run waits for a slot as under `MaxConcurrentRuns=`, rather than
/// failing to start for want of a pipe (and leaving jobd itself without descriptors).
struct RunsInFlightCeilingTests {
    /// jobd keeps a quarter of its limit, at least 128 and at most 1,024, for itself and shares the rest, three a run.
    @Test func theCeilingSharesWhatJobdDoesNotKeepThreeDescriptorsARun() {
        #expect(RunAdmission.runsInFlightCeiling(descriptorLimit: nil) == nil)
        #expect(RunAdmission.runsInFlightCeiling(descriptorLimit: 20_000) == 6_325)  // this machine's hard limit
        #expect(RunAdmission.runsInFlightCeiling(descriptorLimit: 524_288) == 174_421)  // systemd's default hard limit
        #expect(RunAdmission.runsInFlightCeiling(descriptorLimit: 1_024) == 256)  // not raised: 768 for runs
        #expect(RunAdmission.runsInFlightCeiling(descriptorLimit: 200) == 24)  // at least 128 kept
        #expect(RunAdmission.runsInFlightCeiling(descriptorLimit: 64) == 1)
        #expect(RunAdmission.runsInFlightCeiling(descriptorLimit: 0) == 1)
    }

    /// With no `MaxConcurrentRuns=`, the ceiling bounds the runs in flight, the rest wait and start
    /// as runs end; a lower `MaxConcurrentRuns=` still wins.
    @Test(arguments: [(Int?.none, 2), (1, 1), (5, 2)])
    func runsBeyondTheCeilingWaitForASlotAndStartAsRunsEnd(_ configured: Int?, _ expected: Int) throws {
        let t0 = MonotonicInstant(nanoseconds: 1_000_000_000)
        let jobs = (0..<4).map { index in
            JobDefinition(name: "job-\(index)", path: "/etc/jobd/jobs.d/job-\(index).job", triggers: [.unitActive(.seconds(60))],
                          command: try! ExecCommand.parse("/bin/true"))
        }
        var admission = RunAdmission(maxConcurrentRuns: configured, runsInFlightCeiling: 2)
        _ = admission.configure(jobs, maxConcurrentRuns: configured, now: t0)
        #expect(admission.slotLimit == expected)
        var started: [RunRequest] = []
        var waited = 0
        for job in jobs {
            for action in admission.due(job: job.name, now: t0) {
                switch action {
                case .start(let request): started.append(request)
                case .wait(_, .slot): waited += 1
                default: break
                }
            }
        }
        #expect(started.count == expected && waited == 4 - expected && admission.running == expected)
        // Every run ends in turn: each end starts one waiting run, never more than the limit.
        var ended = 0
        while let request = started.first {
            started.removeFirst()
            let outcome = RunOutcome(runID: request.runID, invocationID: request.invocationID, job: request.job,
                                     termination: .exited(0), result: .success, duration: .seconds(1))
            for action in admission.runEnded(outcome, now: t0).actions {
                if case .start(let next) = action { started.append(next) }
            }
            ended += 1
            #expect(admission.running <= expected)
        }
        #expect(ended == 4 && admission.running == 0)
    }
}

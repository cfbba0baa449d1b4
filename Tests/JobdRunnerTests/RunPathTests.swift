import Glibc
import InMemoryLogging
import JobdConfig
import JobdLogging
import JobdRunner
import JobdTestKit
import Logging
import Testing

/// ``JobRunner`` over an in-memory ``RunDriver``: the whole run path, journal entries included,
/// with no process started and time advanced by the test.
@Suite struct RunPathTests {
    struct Harness {
        let log = InMemoryLogHandler()
        let driver: InMemoryRunDriver
        let runner: JobRunner

        init(_ script: InMemoryRunDriver.Script = .init(), host: FixedHostFacts = FixedHostFacts()) {
            driver = InMemoryRunDriver(host: host, script: script)
            let log = self.log
            var logger = Logger(label: "run-path") { _ in log }
            logger.logLevel = .debug
            runner = JobRunner(logger: logger, environment: [:], driver: driver,
                               tracking: .processGroups(reason: "in memory"))
        }

        func run(_ keys: String = "", fence: RunFence? = nil) async throws -> (outcome: RunOutcome, mail: RunMail?) {
            let definition = try JobFileReader.read(name: "backup", path: "/etc/jobd/jobs.d/backup.job",
                                                    text: "[Job]\nExecStart=/usr/bin/backup\n" + keys).get()
            return await runner.run(definition, runID: 1, invocationID: "abc", fence: fence)
        }

        func entries(_ event: JobdEvent) -> [InMemoryLogHandler.Entry] {
            log.entries.filter { $0.metadata[JobdField.event] == .string(event.rawValue) }
        }
    }

    @Test func aNormalExitIsLoggedAndReportedWithTheDriversClock() async throws {
        let harness = Harness()
        async let ended = harness.run()
        await harness.driver.until { $0.running.contains(1) }
        harness.driver.advance(by: TimeSpan(microseconds: 250_000))
        await harness.driver.exit(1, .exited(0))
        let outcome = try await ended.outcome
        #expect(outcome.result == .success && outcome.duration.microseconds == 250_000)
        #expect(harness.driver.steps == ["readEnvironment", "makeCgroup", "spawn", "countLeftovers"])
        #expect(harness.entries(.runStart).map(\.message.description) == ["run 1 of backup started: /usr/bin/backup"])
        let exit = try #require(harness.entries(.runExit).first)
        #expect(exit.message.description == "run 1 of backup exited with status 0 after 250ms: success")
        #expect(exit.metadata[JobdField.pid] == "1001")
    }

    /// Issue 36: a run an earlier jobd handed over is followed, not spawned: nothing is prepared
    /// for it again, its start is `run.adopt` (never a second `run.start`), and its end is the one
    /// jobd-keeper kept, judged as any run's.
    @Test func anAdoptedRunIsFollowedToTheEndTheKeeperKept() async throws {
        let harness = Harness()
        let definition = try JobFileReader.read(name: "backup", path: "/etc/jobd/jobs.d/backup.job",
                                                text: "[Job]\nExecStart=/usr/bin/backup\nAssertPathExists=/srv/nowhere\n").get()
        let adopted = AdoptedProcess(pid: 4242, standardOutput: -1, standardError: -1, cgroup: nil) { .exited(7) }
        let (outcome, _) = await harness.runner.run(definition, runID: 3, invocationID: "abc", adopted: adopted)
        #expect(outcome.result == .exitCode && outcome.termination == .exited(7) && outcome.invocationID == "abc")
        #expect(harness.driver.steps == ["makeCgroup", "adopt", "countLeftovers"], "its Assert…= and environment are not judged again")
        #expect(harness.entries(.runStart).isEmpty)
        let adoption = try #require(harness.entries(.runAdopt).first)
        #expect(adoption.metadata[JobdField.pid] == "4242" && adoption.metadata[JobdField.runID] == "abc")
        #expect(harness.entries(.runExit).first?.metadata[JobdField.result] == "exit-code")
    }

    @Test func aFailedAssertionStartsNothing() async throws {
        var host = FixedHostFacts()
        host.paths = ["/srv/other"]
        let harness = Harness(host: host)
        let outcome = try await harness.run("AssertPathExists=/srv/data\n").outcome
        #expect(outcome.result == .assert && harness.driver.steps.isEmpty)
        #expect(harness.entries(.runStart).first?.message.description == "run 1 of backup could not start: AssertPathExists=/srv/data does not hold")
    }

    @Test func anAccountOrCgroupThatFailsIsAStartFailureWithItsReason() async throws {
        var script = InMemoryRunDriver.Script()
        script.accountFailure = "User=nobody: no such user"
        let noAccount = Harness(script)
        #expect(try await noAccount.run("User=nobody\n").outcome.result == .startFailed)
        #expect(noAccount.driver.steps == ["resolveAccount"])
        #expect(noAccount.entries(.runStart).first?.level == .error)

        script = InMemoryRunDriver.Script()
        script.cgroupFailure = "its cgroup could not be set up: no memory controller"
        let noCgroup = Harness(script)
        let outcome = try await noCgroup.run("MemoryMax=1G\n").outcome
        #expect(outcome.termination.startFailure == "its cgroup could not be set up: no memory controller")
        #expect(noCgroup.driver.steps == ["readEnvironment", "makeCgroup"])
    }

    @Test func runtimeMaxSecStopsTheRunAndSIGKILLFollowsAfterTimeoutStopSec() async throws {
        // The process ignores SIGTERM; SIGKILL ends it.
        let harness = Harness()
        async let ended = harness.run("RuntimeMaxSec=5\nTimeoutStopSec=3\n")
        await harness.driver.until { $0.running.contains(1) && $0.sleeping == 1 }
        harness.driver.advance(by: TimeSpan(microseconds: 5_000_000))
        await harness.driver.until { $0.steps.contains("signal 15") && $0.sleeping == 1 }
        harness.driver.advance(by: TimeSpan(microseconds: 3_000_000))
        let outcome = try await ended.outcome
        #expect(outcome.result == .timeout && outcome.termination == .killed(signal: SIGKILL))
        #expect(harness.driver.steps.filter { $0.hasPrefix("signal") } == ["signal 15", "signal 9"])
        #expect(harness.entries(.runTimeout).first?.message.description
                == "run 1 of backup ran longer than RuntimeMaxSec=5s: SIGTERM to its process group, SIGKILL after TimeoutStopSec=3s")
        #expect(harness.entries(.runKill).count == 1)
    }

    @Test func aStopRequestEndsTheRunStoppedWithoutSIGKILLWhenItExitsAtSIGTERM() async throws {
        var script = InMemoryRunDriver.Script()
        script.endsOn[SIGTERM] = .killed(signal: SIGTERM)
        let harness = Harness(script)
        async let ended = harness.run()
        await harness.driver.until { $0.running.contains(1) }
        #expect(harness.runner.registry.stop(job: "backup", reason: .requested) == 1)
        let outcome = try await ended.outcome
        #expect(outcome.result == .stopped && outcome.stopReason == .requested)
        #expect(!harness.driver.steps.contains("signal 9"))
    }

    /// Issue 39: a run whose process exited 0 just before jobd's stop, its exit not heard yet, is
    /// not stopped: no `run.stop`, no signal, and it ends `success`, as systemd hears a main
    /// process's end before it stops a service. A later stop is judged afresh.
    @Test func aStopAfterTheProcessEndedUnheardSendsNothingAndTheRunSucceeds() async throws {
        let harness = Harness()
        async let ended = harness.run()
        await harness.driver.exitUnheard(1, .exited(0))
        #expect(harness.runner.registry.stopAll(reason: .shutdown) == 1)
        await harness.driver.until { $0.steps.contains("hasEnded") }
        harness.driver.hear(1)
        let outcome = try await ended.outcome
        #expect(outcome.result == .success && outcome.stopReason == nil && outcome.termination == .exited(0))
        #expect(!harness.driver.steps.contains { $0.hasPrefix("signal") }, "\(harness.driver.steps)")
        #expect(harness.entries(.runStop).isEmpty && harness.driver.sleeping == 0)
        #expect(harness.entries(.runExit).first?.metadata[JobdField.result] == "success")
    }

    @Test func aRunItsFenceStoppedEndsLost() async throws {
        var script = InMemoryRunDriver.Script()
        script.fenceStoppedAt = 1_767_225_600_000_000
        let harness = Harness(script)
        async let ended = harness.run(fence: RunFence(path: "/run/jobd/fences/abc"))
        await harness.driver.exit(1, .killed(signal: SIGTERM))
        let outcome = try await ended.outcome
        #expect(outcome.result == .lost && outcome.fencedEnd == 1_767_225_600_000_000)
        #expect(harness.entries(.runStop).first?.metadata[JobdField.reason] == "lease-lost")
    }

    @Test func leftoversOfKillModeProcessKeepTheCgroupAndPrivateTmp() async throws {
        var script = InMemoryRunDriver.Script()
        script.cgroups = true
        script.leftovers = 2
        let kept = Harness(script)
        async let keptEnd = kept.run("KillMode=process\nPrivateTmp=yes\n")
        await kept.driver.exit(1, .exited(0))
        _ = try await keptEnd
        #expect(kept.driver.steps.suffix(2) == ["countLeftovers", "keepCgroup"])

        let stopped = Harness(script)
        async let stoppedEnd = stopped.run("PrivateTmp=yes\n")
        await stopped.driver.exit(1, .exited(0))
        #expect(try await stoppedEnd.outcome.result == .success)
        #expect(stopped.driver.steps.suffix(4) == ["countLeftovers", "terminateLeftovers", "removeCgroup", "removePrivateTmp"])
        #expect(stopped.entries(.runLeftovers).first?.metadata[JobdField.leftovers] == "2")
    }

    @Test func mailIsDueWithTheOutputOfAFailedRunUnderMailOnFailure() async throws {
        var script = InMemoryRunDriver.Script()
        script.output = ["disk full"]
        let failed = Harness(script)
        async let failedEnd = failed.run("MailTo=ops@example.org\nMailOn=failure\n")
        await failed.driver.exit(1, .exited(1))
        let mail = try #require(try await failedEnd.mail)
        #expect(mail.recipients == ["ops@example.org"] && String(decoding: mail.message, as: UTF8.self).contains("disk full"))

        let succeeded = Harness(script)
        async let succeededEnd = succeeded.run("MailTo=ops@example.org\nMailOn=failure\n")
        await succeeded.driver.exit(1, .exited(0))
        #expect(try await succeededEnd.mail == nil)
    }

    /// Issue 39: a stop asked for while the run is prepared (jobd stopping) waits for its process
    /// and reaches it then, through the run's inbox: SIGTERM once, `run.stop` once.
    @Test func jobdsStopAskedBeforeTheProcessReachesItOnceItRuns() async throws {
        var script = InMemoryRunDriver.Script()
        script.endsOn[SIGTERM] = .killed(signal: SIGTERM)
        let harness = Harness(script)
        #expect(harness.runner.registry.stopAll(reason: .shutdown) == 0)
        let outcome = try await harness.run().outcome
        #expect(outcome.result == .stopped && outcome.stopReason == .shutdown)
        #expect(harness.driver.steps == ["readEnvironment", "makeCgroup", "spawn", "hasEnded", "signal 15", "countLeftovers"])
        #expect(harness.entries(.runStop).count == 1 && harness.entries(.runStart).count == 1)
    }

    /// Issue 39: while its process runs, a run arms no timer of its own but `RuntimeMaxSec=`'s on
    /// the driver's, and the stop's timeout is disarmed once the run is over.
    @Test func aRunArmsOnlyItsOwnTimersOnTheDriversAndDisarmsThem() async throws {
        let harness = Harness()
        async let ended = harness.run("TimeoutStopSec=3\n")
        await harness.driver.until { $0.running.contains(1) }
        #expect(harness.driver.sleeping == 0, "no RuntimeMaxSec=: nothing armed")
        #expect(harness.runner.registry.stop(job: "backup", reason: .requested) == 1)
        await harness.driver.until { $0.steps.contains("signal 15") && $0.sleeping == 1 }
        await harness.driver.exit(1, .exited(0))
        #expect(try await ended.outcome.stopReason == .requested)
        #expect(harness.driver.sleeping == 0, "the stop's timeout went with the run")
        #expect(harness.entries(.runKill).isEmpty)
    }
}

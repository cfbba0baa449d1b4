import Foundation
import JobdTestKit
import Testing

/// Runs as a service manager would run them, with real processes: limits, overlap, concurrency,
/// accounts, environment files and output.
@Suite(.serialized) struct JobExecutionTests {
    typealias Setup = JobctlTests.Setup

    /// A job that runs until the test creates `release-RUN` in the configuration directory.
    static func holding(_ directory: String, extra: String = "") -> String {
        "[Job]\nOnStartupSec=1h\n\(extra)ExecStart=/bin/sh -c 'echo held; "
            + "while [ ! -e \(directory)/release-$$JOBD_RUN ]; do sleep 0.02; done'\n"
    }

    static func release(_ setup: Setup, run: String) {
        #expect(FileManager.default.createFile(atPath: setup.config.path + "/release-\(run)", contents: nil))
    }

    /// `jobctl run JOB`, returning the run id it printed and whether it started or was queued.
    static func startRun(_ setup: Setup, _ job: String) throws -> (run: String, queued: Bool) {
        let (status, output) = try setup.jobctl(["run", job])
        #expect(status == 0, "\(output)")
        let words = output.split(separator: " ")
        let run = try #require(words.count > 2 ? String(words[2]) : nil, "\(output)")
        return (run, output.hasPrefix("queued run"))
    }

    /// A configuration directory is created before jobd starts; jobs that hold need its path.
    static func setup(holding jobs: [String: String] = [:], settings: String? = nil,
                      keeping keep: @escaping @Sendable (String) -> Bool = { _ in true }) throws -> Setup {
        let setup = try Setup(jobs: [:], settings: settings, keeping: keep)
        for (name, extra) in jobs { try setup.config.write(job: name, holding(setup.config.path, extra: extra)) }
        #expect(try setup.jobctl(["reload"]).0 == 0)
        return setup
    }

    @Test func runtimeMaxStopsTheRunTogetherWithItsGrandchild() throws {
        let setup = try Setup(jobs: ["slow": """
            [Job]
            OnStartupSec=1h
            RuntimeMaxSec=1s
            ExecStart=/bin/sh -c 'sleep 300 & echo grandchild=$$!; exec sleep 300'
            """])
        #expect(try setup.jobctl(["run", "slow", "--wait"]).0 == 128 + SIGTERM)
        let line = try #require(setup.daemon.events("run.output").first { $0.message.hasPrefix("grandchild=") })
        let grandchild = try #require(pid_t(line.message.dropFirst("grandchild=".count)))
        #expect(ProcessExit.wait(for: grandchild), "the grandchild in the run's process group was stopped too")
        #expect(setup.daemon.events("run.timeout").map { $0.field("JOBD_REASON") } == ["runtime-max"])
        let exit = try #require(setup.daemon.events("run.exit").first)
        #expect(exit.field("EXIT_CODE") == "killed")
        #expect(exit.field("EXIT_STATUS") == "TERM")
        #expect(exit.field("JOBD_REASON") == "runtime-max")
        #expect((exit.field("JOBD_DURATION_USEC").flatMap(UInt64.init) ?? 0) >= 1_000_000)
    }

    @Test func aRunThatIgnoresSIGTERMIsKilledAfterTimeoutStopSec() throws {
        let setup = try Setup(jobs: ["stubborn": """
            [Job]
            OnStartupSec=1h
            RuntimeMaxSec=1s
            TimeoutStopSec=1s
            ExecStart=/bin/sh -c 'trap "" TERM; sleep 300'
            """])
        #expect(try setup.jobctl(["run", "stubborn", "--wait"]).0 == 128 + SIGKILL)
        let events = setup.daemon.lines.map(LogLine.init).compactMap(\.fields["JOBD_EVENT"])
            .filter { $0.hasPrefix("run.") && $0 != "run.output" }
        #expect(events == ["run.start", "run.timeout", "run.kill", "run.exit"])
        let exit = try #require(setup.daemon.events("run.exit").first)
        #expect(exit.field("EXIT_STATUS") == "KILL")
        #expect((exit.field("JOBD_DURATION_USEC").flatMap(UInt64.init) ?? 0) >= 2_000_000,
                "SIGKILL came only after RuntimeMaxSec= and TimeoutStopSec=")
    }

    @Test func overlapSkipRefusesASecondRun() throws {
        let setup = try Self.setup(holding: ["hold": ""])
        let first = try Self.startRun(setup, "hold")
        try setup.daemon.waitForEvent("run.output", fields: ["JOBD_RUN": first.run])
        let (status, output) = try setup.jobctl(["run", "hold"])
        #expect(status == 75, "\(output)")
        // jobctl's answer may come before jobd's log line reaches this process: wait for it.
        try setup.daemon.waitForEvent("run.skip", fields: ["JOB": "hold", "JOBD_REASON": "overlap"])
        Self.release(setup, run: first.run)
        try setup.daemon.waitForEvent("run.exit", fields: ["JOBD_RUN": first.run])
        #expect(setup.daemon.events("run.start").count == 1)
    }

    @Test func overlapQueueStartsOneRunWhenTheRunInFlightEnds() throws {
        let setup = try Self.setup(holding: ["hold": "Overlap=queue\n"])
        let first = try Self.startRun(setup, "hold")
        try setup.daemon.waitForEvent("run.output", fields: ["JOBD_RUN": first.run])
        let second = try Self.startRun(setup, "hold")
        #expect(second.queued)
        // jobctl's answers may come before jobd's log lines reach this process: wait for them.
        try setup.daemon.waitForEvent("run.wait", fields: ["JOB": "hold", "JOBD_REASON": "overlap"])
        #expect(try setup.jobctl(["run", "hold"]).0 == 75, "one run waits at most")
        try setup.daemon.waitForEvent("run.skip", fields: ["JOB": "hold", "JOBD_REASON": "already-queued"])
        Self.release(setup, run: first.run)
        let firstExit = try setup.daemon.waitForEvent("run.exit", fields: ["JOBD_RUN": first.run])
        let secondStart = try setup.daemon.waitForEvent("run.start", fields: ["JOBD_RUN": second.run])
        #expect(secondStart > firstExit)
        #expect(setup.daemon.events("run.exit").first?.field("EXIT_STATUS") == "0", "the first run was not disturbed")
        Self.release(setup, run: second.run)
        try setup.daemon.waitForEvent("run.exit", fields: ["JOBD_RUN": second.run])
    }

    @Test func overlapReplaceStopsTheRunInFlightThenStartsTheNewOne() throws {
        let setup = try Self.setup(holding: ["hold": "Overlap=replace\n"])
        let first = try Self.startRun(setup, "hold")
        try setup.daemon.waitForEvent("run.output", fields: ["JOBD_RUN": first.run])
        let second = try Self.startRun(setup, "hold")
        #expect(second.queued)
        let stop = try setup.daemon.waitForEvent("run.stop", fields: ["JOBD_RUN": first.run, "JOBD_REASON": "replaced"])
        let firstExit = try setup.daemon.waitForEvent(
            "run.exit", fields: ["JOBD_RUN": first.run, "EXIT_STATUS": "TERM", "JOBD_REASON": "replaced"])
        let secondStart = try setup.daemon.waitForEvent("run.start", fields: ["JOBD_RUN": second.run])
        #expect(stop < firstExit && firstExit < secondStart)
        Self.release(setup, run: second.run)
        try setup.daemon.waitForEvent("run.exit", fields: ["JOBD_RUN": second.run, "EXIT_STATUS": "0"])
    }

    @Test func overlapParallelRunsSideBySide() throws {
        let setup = try Self.setup(holding: ["hold": "Overlap=parallel\n"])
        let first = try Self.startRun(setup, "hold")
        let second = try Self.startRun(setup, "hold")
        #expect(!first.queued && !second.queued)
        try setup.daemon.waitForEvent("run.output", fields: ["JOBD_RUN": first.run])
        try setup.daemon.waitForEvent("run.output", fields: ["JOBD_RUN": second.run])
        #expect(setup.daemon.events("run.exit").isEmpty, "both run at once")
        let (_, status) = try setup.jobctl(["status", "hold", "--json"])
        #expect(status.contains("\"running\" : 2"))
        for run in [first.run, second.run] {
            Self.release(setup, run: run)
            try setup.daemon.waitForEvent("run.exit", fields: ["JOBD_RUN": run, "EXIT_STATUS": "0"])
        }
    }

    @Test func maxConcurrentRunsMakesRunsWaitInOrder() throws {
        let setup = try Self.setup(holding: ["a": "", "b": "", "c": ""], settings: "[Daemon]\nMaxConcurrentRuns=1\nLeakGraceSec=2s\n")
        // jobd.conf's grace travels with the readiness and every reload, for the audit.
        #expect(setup.daemon.events("daemon.ready").first?.field("JOBD_LEAK_GRACE_USEC") == "2000000")
        #expect(setup.daemon.events("reload.done").last?.field("JOBD_LEAK_GRACE_USEC") == "2000000")
        let a = try Self.startRun(setup, "a")
        let b = try Self.startRun(setup, "b")
        let c = try Self.startRun(setup, "c")
        #expect(!a.queued && b.queued && c.queued)
        // jobctl's answer may come before the log line that says so (ci95): await the second.
        try setup.daemon.waitForEvent("run.wait", fields: ["JOBD_RUN": c.run])
        #expect(setup.daemon.events("run.wait").map { $0.field("JOBD_REASON") } == ["max-concurrent-runs", "max-concurrent-runs"])
        try setup.daemon.waitForEvent("run.output", fields: ["JOBD_RUN": a.run])
        #expect(setup.daemon.events("run.start").count == 1)
        Self.release(setup, run: a.run)
        let bStart = try setup.daemon.waitForEvent("run.start", fields: ["JOBD_RUN": b.run])
        #expect(setup.daemon.events("run.start").count == 2, "c still waits while b runs")
        Self.release(setup, run: b.run)
        let cStart = try setup.daemon.waitForEvent("run.start", fields: ["JOBD_RUN": c.run])
        #expect(cStart > bStart)
        Self.release(setup, run: c.run)
        try setup.daemon.waitForEvent("run.exit", fields: ["JOBD_RUN": c.run])
    }

    @Test func outputLinesArriveInOrderWithTheirFields() throws {
        let setup = try Setup(jobs: ["talk": """
            [Job]
            OnStartupSec=1h
            ExecStart=/bin/sh -c 'i=1; while [ $$i -le 200 ]; do echo out $$i; echo err $$i >&2; i=$$((i+1)); done'
            """])
        #expect(try setup.jobctl(["run", "talk", "--wait"]).0 == 0)
        let start = try #require(setup.daemon.events("run.start").first)
        let lines = setup.daemon.events("run.output")
        #expect(lines.allSatisfy { $0.field("JOB") == "talk" && $0.field("JOBD_RUN") == start.field("JOBD_RUN") })
        #expect(lines.filter { $0.level == "info" }.map(\.message) == (1...200).map { "out \($0)" })
        #expect(lines.filter { $0.level == "error" }.map(\.message) == (1...200).map { "err \($0)" })
    }

    /// A job writes 256 MiB, four times the bound on jobd's peak memory asserted here, while a client
    /// that asked to follow its output (`jobctl run --wait`) reads nothing for 40 runs of another
    /// job: jobd's memory stays bounded, the other jobs run on, and the client, once it reads, is
    /// told how many lines it lost. (It wrote 1 GiB until the tests ran side by side: in a debug
    /// build that alone took three minutes of a loaded machine, and a quarter shows the same bound.)
    @Test func aJobThatWritesFourTimesTheBoundToASilentFollowerLeavesJobdsMemoryBounded() throws {
        let count = Guarded(0)
        // The test keeps jobd's events but only counts the job's lines.
        let setup = try Setup(jobs: [:]) { line in
            guard line.contains(" run.output ") else { return true }
            count.withLock { $0 += 1 }
            return false
        }
        let script = setup.config.path + "/gigabyte.sh"
        try "yes \"$(head -c 4000 /dev/zero | tr '\\0' x)\" | head -c 268435456\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        try setup.config.write(job: "big", "[Job]\nOnStartupSec=1h\nExecStart=/bin/sh \(script)\n")
        try setup.config.write(job: "tick", "[Job]\nOnStartupSec=0\nOnUnitActiveSec=200ms\nExecStart=/bin/true\n")
        #expect(try setup.jobctl(["reload"]).0 == 0)
        let follower = try RawClient(setup.runtime + "/jobd.sock")
        follower.send(Array(#"{"version":1,"command":"run","job":"big","wait":true,"output":true}"#.utf8) + [10])
        // The follower reads nothing while tick runs 40 times (about 10 s idle; 49 runs in 10 s while
        // a sanitizer build ran beside): a follower that blocked jobd would stop tick altogether,
        // and its wait would fail. How long they took is printed (speed is the benchmarks').
        let silenceStarted = ContinuousClock.now
        var from = setup.daemon.lines.count
        for _ in 0..<40 { from = try setup.daemon.waitForEvent("run.exit", fields: ["JOB": "tick"], from: from, timeout: .seconds(60)) + 1 }
        print("tick ran 40 times in the \(ContinuousClock.now - silenceStarted) the follower was silent")
        let status = try String(contentsOfFile: "/proc/\(setup.daemon.pid)/status", encoding: .utf8)
        let peak = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(peak.split(separator: " ", omittingEmptySubsequences: true)[1]))
        print("jobd's peak RSS while a job wrote 256 MiB to a silent follower: \(kilobytes) kB")
        #expect(kilobytes < 64 * 1_024, "jobd's peak RSS \(kilobytes) kB")
        // Now the follower reads: what was queued, how many lines it lost, and the end of the run.
        let replies = follower.readAll(timeout: 600).split(separator: "\n")
        let lost = replies.compactMap { line -> Int? in
            guard line.contains(#""type":"run-output-lost""#), let range = line.range(of: #""lost":"#) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.reduce(0, +)
        let shown = replies.count { $0.contains(#""type":"run-output""#) }
        #expect(replies.last?.contains(#""type":"run-finished""#) == true)
        // 256 MiB in lines of 4,001 bytes: 67,092 whole lines and one partial line, in the journal
        // all of them, and at the follower each either shown or counted as lost.
        #expect(count.withLock { $0 } == 67_093)
        #expect(lost > 0 && shown + lost == 67_093, "shown \(shown), lost \(lost)")
    }

    @Test func userNobodyRunsAsNobody() throws {
        try Requirement.root("to switch a job to User=nobody")
        let setup = try Setup(jobs: ["who": """
            [Job]
            OnStartupSec=1h
            User=nobody
            ExecStart=/bin/sh -c 'echo $$(id -un) $$(id -u) $$(id -g) $$(id -G) $$HOME $$USER'
            """])
        #expect(try setup.jobctl(["run", "who", "--wait"]).0 == 0)
        #expect(setup.daemon.events("run.output").map(\.message) == ["nobody 65534 65534 65534 /nonexistent nobody"])
    }

    @Test func environmentFilesAreReadAtEachStartAndNeverLogged() throws {
        let setup = try Setup(jobs: [:])
        let file = setup.config.path + "/env"
        try "# secrets\nTOKEN=hunter2\nGREETING=\"hello from the file\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        try setup.config.write(job: "env", """
            [Job]
            OnStartupSec=1h
            Environment=GREETING=overridden
            EnvironmentFile=\(file)
            EnvironmentFile=-/nonexistent/optional.env
            ExecStart=/bin/sh -c 'echo $$GREETING; echo token of $${#TOKEN} characters'
            """)
        try setup.config.write(job: "missing", "[Job]\nOnStartupSec=1h\nEnvironmentFile=/nonexistent/required.env\nExecStart=/bin/true\n")
        #expect(try setup.jobctl(["reload"]).0 == 0)
        #expect(try setup.jobctl(["run", "env", "--wait"]).0 == 0)
        #expect(setup.daemon.events("run.output").map(\.message) == ["hello from the file", "token of 7 characters"])
        try "GREETING=changed\nTOKEN=hunter2\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try setup.jobctl(["run", "env", "--wait"]).0 == 0)
        #expect(setup.daemon.events("run.output").map(\.message).suffix(2) == ["changed", "token of 7 characters"],
                "read again at the next start, no reload")
        // systemd's EXIT_EXEC, as in the journal, with the reason.
        let (missing, missingOutput) = try setup.jobctl(["run", "missing", "--wait"])
        #expect(missing == 203)
        #expect(missingOutput.contains("jobctl: missing could not start: ") && missingOutput.contains("/nonexistent/required.env"), "\(missingOutput)")
        let failed = try #require(setup.daemon.events("run.exit").last)
        #expect(failed.field("EXIT_CODE") == "failed-to-start")
        #expect(setup.daemon.lines.contains { $0.contains("/nonexistent/required.env") })
        #expect(!setup.daemon.lines.contains { $0.contains("hunter2") }, "no secret in jobd's log")
    }

    @Test func stopGivesRunsTheirTimeoutStopSecThenKillsThemAndExitsZero() throws {
        let setup = try Setup(jobs: ["stubborn": """
            [Job]
            OnStartupSec=1h
            TimeoutStopSec=1s
            ExecStart=/bin/sh -c 'trap "" TERM; echo ready; sleep 300'
            """])
        let run = try Self.startRun(setup, "stubborn")
        try setup.daemon.waitForEvent("run.output", fields: ["JOBD_RUN": run.run])
        setup.daemon.signal(SIGTERM)
        #expect(try setup.daemon.waitForExit() == 0)
        #expect(setup.daemon.events("run.stop").map { $0.field("JOBD_REASON") } == ["shutdown"])
        #expect(setup.daemon.events("run.kill").count == 1)
        #expect(setup.daemon.events("run.exit").map { $0.field("EXIT_STATUS") } == ["KILL"])
    }
}

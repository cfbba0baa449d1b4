import Foundation
import JobdConfig
import JobdTestKit
import Testing

/// `jobd-cgexec` with a fence in its plan: the supervisor a fleet run gets. It reports how the command ended, as the
/// trampoline did before; once the deadline in its fence file passes it stops the run (SIGTERM,
/// SIGKILL after the plan's stop timeout) and leaves `FILE.stopped` with the run's end. Each run is its own
/// session (`setsid`), as jobd starts it, so that the supervisor signals the run alone, and starts
/// with no signal blocked, as jobd starts it (the test runner's threads block nearly all, and a
/// child inherits that; perl, which Debian always has, clears it).
@Suite(.serialized) struct FenceSupervisorTests {
    final class Fence {
        let directory = NSTemporaryDirectory() + "jobd-fence-" + UUID().uuidString
        var path: String { directory + "/run" }
        var stopped: String? { try? String(contentsOfFile: path + ".stopped", encoding: .utf8) }
        /// A deadline written ahead, for the command to rename over ``path`` when it is ready.
        var next: String { directory + "/next" }

        init(secondsFromNow seconds: Int64) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try set(secondsFromNow: seconds)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        /// The deadline, on CLOCK_BOOTTIME, as jobd writes it.
        func set(secondsFromNow seconds: Int64) throws {
            try Self.deadline(secondsFromNow: seconds).write(toFile: path, atomically: true, encoding: .utf8)
        }

        /// The deadline as ``set(secondsFromNow:)`` computes it, written to ``next``.
        func prepare(secondsFromNow seconds: Int64) throws {
            try Self.deadline(secondsFromNow: seconds).write(toFile: next, atomically: true, encoding: .utf8)
        }

        private static func deadline(secondsFromNow seconds: Int64) -> String {
            var now = timespec()
            clock_gettime(CLOCK_BOOTTIME, &now)
            return "\(max(0, (Int64(now.tv_sec) + seconds) * 1_000_000 + Int64(now.tv_nsec) / 1_000))\n"
        }
    }

    static func supervised(_ fence: Fence, stop: TimeSpan = .seconds(5), nice: Int32? = nil, _ command: [String]) throws -> CapturedProcess {
        var plan = ExecPlan()
        plan.fence = ExecPlan.Fence(path: fence.path, stopTimeout: stop)
        plan.attributes.nice = nice
        plan.environment = ["PATH": "/usr/bin:/bin"]
        plan.argv = command
        return try TrampolineExitTests.trampoline(plan.encoded(), prefix: [
            "/usr/bin/setsid", "-w", "/usr/bin/perl", "-MPOSIX", "-e", "sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die; exec @ARGV or die",
        ])
    }

    @Test func beforeItsDeadlineTheCommandEndsAsItWouldWithoutTheFence() throws {
        let fence = try Fence(secondsFromNow: 60)
        let exited = try Self.supervised(fence, ["/bin/sh", "-c", "echo ran; exit 7"])
        #expect(exited.status == 7 && exited.standardOutput == "ran\n" && exited.standardError.isEmpty, "\(exited.standardError)")
        // A signal ends the supervisor the same way (and no core of its own).
        let killed = try Self.supervised(fence, ["/bin/sh", "-c", "kill -USR1 $$"])
        #expect(killed.status == 128 + SIGUSR1)
        // A failure before the command runs is still reported, with systemd's status.
        let missing = try Self.supervised(fence, ["/nonexistent/command"])
        #expect(missing.status == 203 && missing.standardError == "jobd-cgexec: /nonexistent/command: No such file or directory\n")
        #expect(fence.stopped == nil)
    }

    /// The job's attributes are the command's, not its supervisor's: a `Nice=` cannot slow the fence.
    @Test func theSupervisorKeepsJobdsPriority() throws {
        let fence = try Fence(secondsFromNow: 60)
        let result = try Self.supervised(fence, nice: 15, ["/bin/sh", "-c", "ps -o ni= -p $PPID; ps -o ni= -p $$"])
        let values = result.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        errno = 0
        let own = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #expect(values == ["\(own)", "15"], "\(result.standardOutput) \(result.standardError)")
    }

    /// The command arms the fence once its trap is set (the deadline a second ahead, renamed into
    /// place as jobd writes it), so that the SIGTERM cannot come before the trap however slow the
    /// shell starts. Its `sleep 60` ended by the signal, with the trap's status, is the stop at the
    /// deadline: without the fence it would exit 0 after those 60 s.
    @Test func atItsDeadlineTheRunGetsSIGTERMAndItsEndIsRecorded() throws {
        let fence = try Fence(secondsFromNow: 60)
        let started = Date()
        try fence.prepare(secondsFromNow: 1)
        let result = try Self.supervised(fence, ["/bin/sh", "-c", "trap 'echo stopped; exit 3' TERM; mv \"$0\" \"$1\"; sleep 60 & wait",
                                                 fence.next, fence.path])
        let ended = Date()
        #expect(result.status == 3 && result.standardOutput == "stopped\n", "\(result.standardError)")
        #expect(result.standardError.contains("jobd-cgexec: this node no longer holds the run's fleet lease: SIGTERM to the run"))
        let end = try #require(fence.stopped.flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        // Not before the deadline, a second after `started` at the earliest; recorded before the supervisor exited.
        #expect(end / 1_000_000 >= started.timeIntervalSince1970 + 0.99 && end / 1_000_000 <= ended.timeIntervalSince1970 + 0.1)
        print("FENCE stopped \(end / 1_000_000 - started.timeIntervalSince1970) s after the start")
    }

    @Test func aRunThatIgnoresSIGTERMGetsSIGKILLAfterTheStopTimeout() throws {
        // The fence passes once the shell ignores SIGTERM: a deadline of 0 has passed.
        let fence = try Fence(secondsFromNow: 60)
        try "0\n".write(toFile: fence.next, atomically: true, encoding: .utf8)
        let result = try Self.supervised(fence, stop: TimeSpan(microseconds: 300_000), ["/bin/sh", "-c", "trap '' TERM; mv \"$0\" \"$1\"; sleep 60",
                                                                 fence.next, fence.path])
        #expect(result.status == 128 + SIGKILL)
        #expect(result.standardError.contains("the run outlived its stop timeout after the lease ended: SIGKILL"))
    }

    /// jobd's own stop (SIGTERM to the run's process group) reaches the command, not the supervisor,
    /// which reports the command's end; the fence did not fire.
    @Test func jobdsStopReachesTheCommandThroughTheSupervisor() throws {
        let fence = try Fence(secondsFromNow: 60)
        let result = try Self.supervised(fence, ["/bin/sh", "-c", "trap 'echo stopping; exit 4' TERM; kill -TERM 0; sleep 30 & wait"])
        #expect(result.status == 4 && result.standardOutput == "stopping\n", "\(result.standardError)")
        #expect(fence.stopped == nil)
    }
}

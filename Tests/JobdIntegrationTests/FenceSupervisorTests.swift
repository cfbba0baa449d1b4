import Foundation
import JobdTestKit
import Testing

/// `jobd-cgexec --fence`: the supervisor a fleet run gets. It reports how the command ended, as the
/// trampoline did before; once the deadline in its fence file passes it stops the run (SIGTERM,
/// SIGKILL after `--fence-stop`) and leaves `FILE.stopped` with the run's end. Each run is its own
/// session (`setsid`), as jobd starts it, so that the supervisor signals the run alone, and starts
/// with no signal blocked, as jobd starts it (the test runner's threads block nearly all, and a
/// child inherits that; perl, which Debian always has, clears it).
@Suite(.serialized) struct FenceSupervisorTests {
    final class Fence {
        let directory = NSTemporaryDirectory() + "jobd-fence-" + UUID().uuidString
        var path: String { directory + "/run" }
        var stopped: String? { try? String(contentsOfFile: path + ".stopped", encoding: .utf8) }

        init(secondsFromNow seconds: Int64) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try set(secondsFromNow: seconds)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        /// The deadline, on CLOCK_BOOTTIME, as jobd writes it.
        func set(secondsFromNow seconds: Int64) throws {
            var now = timespec()
            clock_gettime(CLOCK_BOOTTIME, &now)
            let deadline = (Int64(now.tv_sec) + seconds) * 1_000_000 + Int64(now.tv_nsec) / 1_000
            try "\(max(0, deadline))\n".write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    static func supervised(_ fence: Fence, stop: String = "5000000", options: [String] = [], _ command: [String]) throws -> CapturedProcess {
        let trampoline = DaemonProcess.productsDirectory + "/jobd-cgexec"
        return try CapturedProcess.run(
            "/bin/sh", ["-c", "printf 'PATH=/usr/bin:/bin\\0\\0' | /usr/bin/setsid -w \"$@\"", "sh",
                        "/usr/bin/perl", "-MPOSIX", "-e", "sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die; exec @ARGV or die", trampoline,
                        "--fence", fence.path, "--fence-stop", stop] + options + ["--"] + command,
            environment: ["PATH": "/usr/bin:/bin"])
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
        let result = try Self.supervised(fence, options: ["--nice", "15"], ["/bin/sh", "-c", "ps -o ni= -p $PPID; ps -o ni= -p $$"])
        let values = result.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        errno = 0
        let own = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #expect(values == ["\(own)", "15"], "\(result.standardOutput) \(result.standardError)")
    }

    @Test func atItsDeadlineTheRunGetsSIGTERMAndItsEndIsRecorded() throws {
        let fence = try Fence(secondsFromNow: 1)
        let started = Date()
        let result = try Self.supervised(fence, ["/bin/sh", "-c", "trap 'echo stopped; exit 3' TERM; sleep 30 & wait"])
        let ended = Date()
        #expect(result.status == 3 && result.standardOutput == "stopped\n", "\(result.standardError)")
        #expect(result.standardError.contains("jobd-cgexec: this node no longer holds the run's fleet lease: SIGTERM to the run"))
        #expect(ended.timeIntervalSince(started) < 10, "stopped at the deadline, not after the command's 30 s")
        let end = try #require(fence.stopped.flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(end / 1_000_000 >= started.timeIntervalSince1970 && end / 1_000_000 <= ended.timeIntervalSince1970 + 0.1)
    }

    @Test func aRunThatIgnoresSIGTERMGetsSIGKILLAfterTheStopTimeout() throws {
        // A second, so that the shell ignores SIGTERM before it comes.
        let fence = try Fence(secondsFromNow: 1)
        let started = Date()
        let result = try Self.supervised(fence, stop: "300000", ["/bin/sh", "-c", "trap '' TERM; sleep 30"])
        #expect(result.status == 128 + SIGKILL)
        #expect(result.standardError.contains("the run outlived its stop timeout after the lease ended: SIGKILL"))
        #expect(Date().timeIntervalSince(started) < 10)
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

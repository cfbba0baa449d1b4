import Glibc
import JobdConfig
import JobdTestKit
import Testing

/// `SuccessExitStatus=`, `RestartPreventExitStatus=`, `TimeoutStartSec=`, `StandardInput=` and `SupplementaryGroups=`, read as systemd 252 reads them
/// for a `Type=oneshot` service (issue 27).
struct ExitStatusKeysTests {
    static func read(_ lines: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "status", path: "/j/status.job", text: "[Job]\nExecStart=/bin/true\n" + lines)
    }

    @Test func successExitStatusTakesStatusesAndSignalsAndAddsUp() throws {
        let read = try Self.read("SuccessExitStatus=1 2 SIGHUP\nSuccessExitStatus=TERM 75\n").get()
        #expect(read.successExitStatus == SuccessExitStatus(statuses: [1, 2, 75], signals: [SIGHUP, SIGTERM]))
        #expect(try Self.read("SuccessExitStatus=1\nSuccessExitStatus=\n").get().successExitStatus == SuccessExitStatus())
        for wrong in ["256", "-1", "SIGNOPE", "ok"] {
            guard case .failure(let errors) = Self.read("SuccessExitStatus=3 \(wrong)\n") else {
                Issue.record("SuccessExitStatus=3 \(wrong) was accepted")
                continue
            }
            #expect(errors.errors.first?.message == "SuccessExitStatus=: '\(wrong)' is neither an exit status nor a signal")
        }
    }

    /// Debian's systemd-tmpfiles-clean.service has `SuccessExitStatus=DATAERR`: the names are
    /// systemd's, exactly those `systemd-analyze exit-status` lists.
    @Test func exitStatusNamesAreSystemdsOwn() throws {
        let read = try Self.read("SuccessExitStatus=DATAERR EXEC SIGHUP\nRestartPreventExitStatus=CONFIG 1\n").get()
        #expect(read.successExitStatus == SuccessExitStatus(statuses: [65, 203], signals: [SIGHUP]))
        #expect(read.restart.preventExitStatus == SuccessExitStatus(statuses: [78, 1]))
        let analyze = try Requirement.tools("/usr/bin/systemd-analyze", for: "the exit status names")
        let listed = try CapturedProcess.run(analyze, ["exit-status"])
        var names: [String: Int32] = [:]
        for line in listed.standardOutput.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if words.count >= 2, let status = Int32(words[1]) { names[String(words[0])] = status }
        }
        #expect(names.count > 60 && names == ExitStatusName.statuses)
    }

    @Test func restartPreventExitStatusTakesTheSameListAndPreventsByStatusOrSignal() throws {
        let restart = try Self.read("RestartPreventExitStatus=2 SIGTERM\nRestartPreventExitStatus=75\n").get().restart
        #expect(restart.preventExitStatus == SuccessExitStatus(statuses: [2, 75], signals: [SIGTERM]))
        #expect(restart.prevents(exitCode: "exited", exitStatus: "75") && !restart.prevents(exitCode: "exited", exitStatus: "15"))
        #expect(restart.prevents(exitCode: "killed", exitStatus: "TERM") && !restart.prevents(exitCode: "killed", exitStatus: "2"))
        #expect(try Self.read("RestartPreventExitStatus=2\nRestartPreventExitStatus=\n").get().restart == RestartPolicy())
        guard case .failure(let errors) = Self.read("RestartPreventExitStatus=2 nope\n") else {
            Issue.record("RestartPreventExitStatus=2 nope was accepted")
            return
        }
        #expect(errors.errors.map(\.description) == [
            "/j/status.job:3: error: RestartPreventExitStatus=: 'nope' is neither an exit status nor a signal\n"
                + "/j/status.job:3: note: write exit statuses from 0 to 255 or their names (systemd-analyze exit-status) and signal names such as SIGTERM, separated by spaces",
        ])
    }

    @Test func timeoutStartSecIsTheRunsLimitAndTheShorterOfTwoWins() throws {
        #expect(try Self.read("TimeoutStartSec=2h\n").get().runtimeMax == .seconds(7_200))
        #expect(try Self.read("TimeoutStartSec=2h\nRuntimeMaxSec=30min\n").get().runtimeMax == .seconds(1_800))
        #expect(try Self.read("RuntimeMaxSec=30min\nTimeoutStartSec=10s\n").get().runtimeMax == .seconds(10))
        #expect(try Self.read("TimeoutStartSec=0\n").get().runtimeMax == .infinity, "0 is no limit, as systemd's infinity")
        #expect(try Self.read("").get().runtimeMax == .infinity, "a oneshot's default is no limit")
    }

    @Test func standardInputIsNullOnly() throws {
        #expect(throws: Never.self) { try Self.read("StandardInput=null\n").get() }
        guard case .failure(let errors) = Self.read("StandardInput=tty\n") else {
            Issue.record("StandardInput=tty was accepted")
            return
        }
        #expect(errors.errors.first?.message == "StandardInput=: jobd gives every run /dev/null as its standard input, not 'tty'")
    }

    @Test func supplementaryGroupsAddUpAndAMissingOneIsAnErrorAtLoad() throws {
        #expect(try Self.read("SupplementaryGroups=adm root\nSupplementaryGroups=daemon\n").get().supplementaryGroups == ["adm", "root", "daemon"])
        #expect(try Self.read("SupplementaryGroups=adm\nSupplementaryGroups=\n").get().supplementaryGroups.isEmpty)
        guard case .failure(let errors) = Self.read("SupplementaryGroups=adm no-such-group-jobd\n") else {
            Issue.record("a missing group was accepted")
            return
        }
        #expect(errors.errors.count == 1 && errors.errors[0].line == 3, "\(errors.errors)")
        #expect(errors.errors.first?.message.contains("no-such-group-jobd") == true)
    }
}

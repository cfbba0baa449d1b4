import Foundation
import JobdConfig
import JobdTestKit
import Testing

/// `jobd.conf`: optional, `[Daemon]`, and part of the all-or-nothing load.
@Suite struct DaemonSettingsTests {
    let path = "/etc/jobd/jobd.conf"

    @Test func defaultsWithoutKeys() throws {
        let settings = try DaemonSettings.read(path: path, text: "[Daemon]\n").get()
        #expect(settings.maxConcurrentRuns == nil)
        #expect(settings.leakGrace == .seconds(5))
    }

    @Test func keysAreRead() throws {
        let settings = try DaemonSettings.read(path: path, text: "[Daemon]\nMaxConcurrentRuns=4\nLeakGraceSec=1min\n").get()
        #expect(settings.maxConcurrentRuns == 4)
        #expect(settings.leakGrace == .seconds(60))
        #expect(try DaemonSettings.read(path: path, text: "[Daemon]\nMaxConcurrentRuns=infinity\n").get().maxConcurrentRuns == nil)
    }

    @Test func errorsNameFileLineAndExpectation() throws {
        guard case .failure(let failure) = DaemonSettings.read(path: path, text: """
            [Daemon]
            MaxConcurrentRuns=0
            MaxConcurentRuns=2
            LeakGraceSec=later
            [Job]
            """) else {
            Issue.record("expected errors")
            return
        }
        let errors = failure.errors.sorted { ($0.line ?? 0) < ($1.line ?? 0) }
        #expect(errors.map(\.line) == [2, 3, 4, 5])
        #expect(errors[0].description.hasPrefix("\(path):2: error: MaxConcurrentRuns=: '0' is not a positive number"))
        #expect(errors[1].hint == "did you mean 'MaxConcurrentRuns='?")
        #expect(errors[2].message.hasPrefix("LeakGraceSec=: invalid time span 'later'"))
        #expect(errors[3].message == "unknown section [Job]")
    }

    /// `JobWaitingRunsMax=` and `UserWaitingRunsMax=` (issue 37): a number, `infinity`, empty for
    /// the default; anything else an error naming the file, the line and what is expected.
    @Test func waitingRunsBudgetsAreReadWithTheirDefaults() throws {
        let defaults = try DaemonSettings.read(path: path, text: "[Daemon]\n").get()
        #expect(defaults.jobWaitingRunsMax == 32 && defaults.userWaitingRunsMax == 100)
        let set = try DaemonSettings.read(path: path, text: "[Daemon]\nJobWaitingRunsMax=infinity\nUserWaitingRunsMax=7\n").get()
        #expect(set.jobWaitingRunsMax == nil && set.userWaitingRunsMax == 7)
        guard case .failure(let failure) = DaemonSettings.read(path: path, text: "[Daemon]\nUserWaitingRunsMax=0\nJobWaitingRunsMax=many\n") else {
            Issue.record("expected errors")
            return
        }
        let errors = failure.errors.sorted { ($0.line ?? 0) < ($1.line ?? 0) }
        #expect(errors.map(\.line) == [2, 3])
        #expect(errors[0].description.hasPrefix("\(path):2: error: UserWaitingRunsMax=: '0' is not a positive number"))
        #expect(errors[1].description.hasPrefix("\(path):3: error: JobWaitingRunsMax=: 'many' is not a positive number"))
        #expect(errors[1].hint == "write a number of runs such as 32 (the default), or infinity")
    }

    /// `CatchUpBurst=` (issue 40): 8 catch-ups a second by default, `infinity` for all at once.
    @Test func catchUpBurstIsReadWithItsDefault() throws {
        #expect(try DaemonSettings.read(path: path, text: "[Daemon]\n").get().catchUpBurst == 8)
        #expect(try DaemonSettings.read(path: path, text: "[Daemon]\nCatchUpBurst=infinity\n").get().catchUpBurst == nil)
        #expect(try DaemonSettings.read(path: path, text: "[Daemon]\nCatchUpBurst=3\n").get().catchUpBurst == 3)
        guard case .failure(let failure) = DaemonSettings.read(path: path, text: "[Daemon]\nCatchUpBurst=0\n") else {
            Issue.record("expected an error")
            return
        }
        #expect(failure.errors.first?.description.hasPrefix("\(path):2: error: CatchUpBurst=: '0' is not a positive number") == true)
    }

    /// `StopTimeoutMaxSec=` (issue 37): a finite time span, 20 s by default.
    @Test func stopTimeoutMaxSecIsReadWithItsDefault() throws {
        #expect(try DaemonSettings.read(path: path, text: "[Daemon]\n").get().stopTimeoutMax == .seconds(20))
        #expect(try DaemonSettings.read(path: path, text: "[Daemon]\nStopTimeoutMaxSec=5s\n").get().stopTimeoutMax == .seconds(5))
        for value in ["infinity", "soon"] {
            guard case .failure(let failure) = DaemonSettings.read(path: path, text: "[Daemon]\nStopTimeoutMaxSec=\(value)\n") else {
                Issue.record("expected an error for \(value)")
                continue
            }
            #expect(failure.errors.first?.description.hasPrefix("\(path):2: error: StopTimeoutMaxSec=: ") == true)
            #expect(failure.errors.first?.hint == "write a time span below jobd.service's TimeoutStopSec=, such as 20s (the default)")
        }
    }

    /// `UserConnectionsMax=` (issue 37): a positive number, 4 by default.
    @Test func userConnectionsMaxIsReadWithItsDefault() throws {
        #expect(try DaemonSettings.read(path: path, text: "[Daemon]\n").get().userConnectionsMax == 4)
        #expect(try DaemonSettings.read(path: path, text: "[Daemon]\nUserConnectionsMax=2\n").get().userConnectionsMax == 2)
        guard case .failure(let failure) = DaemonSettings.read(path: path, text: "[Daemon]\nUserConnectionsMax=infinity\n") else {
            Issue.record("expected an error")
            return
        }
        #expect(failure.errors.map(\.description).first?.hasPrefix("\(path):2: error: UserConnectionsMax=: 'infinity' is not a positive number") == true)
        #expect(failure.errors.first?.hint == "write a number of connections such as 4 (the default)")
    }

    @Test func aBrokenJobdConfFailsTheWholeLoadAndAMissingOneIsFine() throws {
        let config = try TemporaryConfiguration(jobs: ["a": "[Job]\nExecStart=/bin/true\nOnStartupSec=1h\n"])
        let directory = JobDirectory(path: config.path)
        #expect(try directory.loadConfiguration().get().daemon == DaemonSettings())
        try "[Daemon]\nMaxConcurrentRuns=two\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        guard case .failure(let failure) = directory.loadConfiguration() else {
            Issue.record("a broken jobd.conf must fail the load")
            return
        }
        #expect(failure.errors.map(\.location) == ["\(config.path)/jobd.conf:2"])
        try "[Daemon]\nMaxConcurrentRuns=2\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        let loaded = try directory.loadConfiguration().get()
        #expect(loaded.daemon.maxConcurrentRuns == 2)
        #expect(loaded.jobs.map(\.name) == ["a"])
    }
}

/// Issue 37: `USER:JOB` names a user's own job alone: a system job file with a ':' in its name is
/// an error that says why and how to rename it, and breaks only itself.
@Suite struct ReservedJobNameTests {
    @Test func aSystemJobFileWithAColonInItsNameIsAnError() throws {
        let job = "[Job]\nExecStart=/bin/true\nOnStartupSec=1h\n"
        let config = try TemporaryConfiguration(jobs: ["alice:x": job, "fine": job])
        let read = JobDirectory(path: config.path).read()
        #expect(read.jobs.map(\.name) == ["fine"])
        let broken = try #require(read.broken.first)
        #expect(broken.name == "alice:x" && broken.owner == nil)
        #expect(broken.errors.first?.message == "'alice:x': a ':' in a job's name is kept for users' own jobs (USER:JOB)")
        #expect(broken.errors.first?.hint == "rename the file without ':', such as alice-x.job")
    }
}

/// Issue 37: each user's budget of journal lines, read as systemd reads LogRateLimit…=.
@Suite struct UserLogRateLimitSettingsTests {
    @Test func theBudgetIsReadWithItsDefaultsAndClearErrors() throws {
        let defaults = try DaemonSettings.read(path: "/j.conf", text: "[Daemon]\n").get()
        #expect(defaults.userLogRateLimitBurst == 1_000 && defaults.userLogRateLimitInterval == .seconds(30))
        let set = try DaemonSettings.read(path: "/j.conf", text: "[Daemon]\nUserLogRateLimitBurst=infinity\nUserLogRateLimitIntervalSec=1min\n").get()
        #expect(set.userLogRateLimitBurst == nil && set.userLogRateLimitInterval == .seconds(60))
        guard case .failure(let failure) = DaemonSettings.read(path: "/j.conf", text: "[Daemon]\nUserLogRateLimitBurst=lots\nUserLogRateLimitIntervalSec=0\n") else {
            Issue.record("expected errors")
            return
        }
        let described = failure.errors.map(\.description)
        #expect(described.count == 2)
        #expect(described.first?.hasPrefix("/j.conf:2: error: UserLogRateLimitBurst=: 'lots' is not a number of lines") == true, "\(described)")
        #expect(described.last?.hasPrefix("/j.conf:3: error: UserLogRateLimitIntervalSec=: '0' is not a time span above 0") == true, "\(described)")
    }
}

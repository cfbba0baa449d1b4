import Foundation
import JobdTestKit
import Testing

/// jobd and jobctl together, over the control socket.
@Suite(.serialized) struct JobctlTests {
    final class Setup {
        let config: TemporaryConfiguration
        let runtime: String
        let daemon: DaemonProcess

        /// jobd on `jobs`, with `settings` as its `jobd.conf`, collecting the log lines `keep` accepts.
        init(jobs: [String: String], settings: String? = nil, keeping keep: @escaping @Sendable (String) -> Bool = { _ in true }) throws {
            config = try TemporaryConfiguration(jobs: jobs)
            if let settings { try settings.write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8) }
            runtime = config.path + "/run"
            daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime], keeping: keep)
            try daemon.waitForEvent("daemon.ready")
        }

        /// Runs jobctl with `arguments` and the runtime directory; returns its exit status and output.
        func jobctl(
            _ arguments: [String], as user: (uid: UInt32, gid: UInt32)? = nil, timeout: Duration = .seconds(30)
        ) throws -> (Int32, String) {
            try Jobctl(runtime: runtime, daemon: daemon, environment: nil)(arguments, as: user, timeout: timeout)
        }

        deinit {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
    }

    /// nobody and nogroup on Debian.
    static let nobody: (uid: UInt32, gid: UInt32) = (65_534, 65_534)
    static let hourly = "[Job]\nOnStartupSec=1h\nOnUnitActiveSec=1h\nExecStart=/bin/true\n"

    @Test func reloadExitCodesForGoodAndBadConfigurationsAndNoDaemon() throws {
        let setup = try Setup(jobs: ["keep": Self.hourly, "drop": Self.hourly])
        try setup.config.remove(job: "drop")
        try setup.config.write(job: "new", Self.hourly)
        let (accepted, acceptedOutput) = try setup.jobctl(["reload"])
        #expect(accepted == 0)
        #expect(acceptedOutput.contains("jobd reloaded: generation 2: 1 added (new), 0 changed, 1 removed (drop), 1 kept"))

        try setup.config.write(job: "bad", "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\nOnCalender=daily\n")
        let (rejected, rejectedOutput) = try setup.jobctl(["reload"])
        #expect(rejected == 1)
        #expect(rejectedOutput.contains("\(setup.config.path)/jobs.d/bad.job:4: error: unknown key 'OnCalender='"))
        #expect(rejectedOutput.contains("jobd reloaded with errors: generation 3: 0 added, 0 changed, 0 removed, 2 kept"))
        #expect(rejectedOutput.contains("reload incomplete: 1 error(s)"))

        setup.daemon.signal(SIGTERM)
        #expect(try setup.daemon.waitForExit() == 0)
        let (gone, goneOutput) = try setup.jobctl(["reload"])
        #expect(gone == 2, "\(goneOutput)")
    }

    /// A misspelt `OnFailure=` is an error with the nearest job's name, in `jobctl check` and in a
    /// reload, which keeps the job's previous definition and fails `systemctl reload jobd`.
    @Test func misspeltOnFailureIsAnErrorInCheckAndReload() throws {
        let setup = try Setup(jobs: ["notify": Self.hourly, "backup": Self.hourly + "OnFailure=notify\n"])
        try setup.config.write(job: "backup", Self.hourly + "OnFailure=notfy\n")
        let expected = "\(setup.config.path)/jobs.d/backup.job:5: error: OnFailure=: no job is named 'notfy' (there is no notfy.job)\n"
            + "\(setup.config.path)/jobs.d/backup.job:5: note: did you mean 'notify'?"
        let (reloaded, reloadOutput) = try setup.jobctl(["reload"])
        #expect(reloaded == 1)
        #expect(reloadOutput.contains(expected), "\(reloadOutput)")
        #expect(reloadOutput.contains("0 changed, 0 removed, 2 kept"), "the broken file kept its job's previous definition")
        let check = try DaemonProcess(product: "jobctl", arguments: ["check", "--config-dir", setup.config.path])
        #expect(try check.waitForExit() == 1)
        #expect(check.lines.joined(separator: "\n").contains(expected), "\(check.lines)")
        let (_, failed) = try setup.jobctl(["list", "--failed"])
        #expect(failed.contains("bad-setting") && failed.contains("backup"), "\(failed)")
    }

    /// `jobctl status` names the failed and running jobs, says each broken file's error once, and
    /// shows the owners' bookkeeping only when something is wrong with it.
    @Test func daemonStatusNamesFailedJobsAndSaysEachErrorOnce() throws {
        let setup = try Setup(jobs: ["bad": "[Job]\nOnStartupSec=1h\nExecStart=/bin/false\n", "good": Self.hourly])
        #expect(try setup.jobctl(["run", "bad", "--wait"]).0 == 1)
        try setup.config.write(job: "broken", Self.hourly + "OnCalender=daily\n")
        #expect(try setup.jobctl(["reload"]).0 == 1)
        let (status, output) = try setup.jobctl(["status"])
        #expect(status == 0)
        #expect(output.contains("   Running: none") && output.contains("    Failed: 1: bad"), "\(output)")
        #expect(output.components(separatedBy: "unknown key 'OnCalender='").count == 2, "the error once: \(output)")
        #expect(!output.contains("Timers:") && !output.contains("Owners:"), "\(output)")
    }

    /// The shipped jobctl is a link to jobd (one binary, scripts/build-release): started by that
    /// name, jobd is jobctl, and answers as the jobctl built on its own does; by any other name it
    /// is jobd. Also `jobctl status --json` after a reload: the last reload's count of kept jobs.
    @Test func jobdStartedAsJobctlIsJobctl() throws {
        let setup = try Setup(jobs: ["a": Self.hourly, "b": Self.hourly])
        #expect(try setup.jobctl(["reload"]).0 == 0)
        let links = setup.config.path + "/bin"
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: links + "/jobctl", withDestinationPath: DaemonProcess.productsDirectory + "/jobd")
        try FileManager.default.createSymbolicLink(atPath: links + "/jobd-by-another-name", withDestinationPath: DaemonProcess.productsDirectory + "/jobd")
        for arguments in [["status", "--json"], ["list", "--json"], ["status", "a"], ["--help"]] {
            let linked = try CapturedProcess.run(links + "/jobctl", arguments + ["--runtime-dir", setup.runtime])
            let alone = try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobctl", arguments + ["--runtime-dir", setup.runtime])
            #expect(linked.status == alone.status && linked.standardError == alone.standardError, "\(arguments): \(linked.standardError)")
            // A next elapse, from the monotonic clock, can read a microsecond apart; `status JOB`
            // says how long ago things were.
            func stable(_ text: String) -> [Substring] { text.split(separator: "\n").filter { !$0.contains("nextElapseUSec") } }
            if arguments != ["status", "a"] {
                #expect(stable(linked.standardOutput) == stable(alone.standardOutput), "\(arguments): \(linked.standardOutput)")
            }
        }
        let status = try CapturedProcess.run(links + "/jobctl", ["status", "--json", "--runtime-dir", setup.runtime])
        #expect(status.standardOutput.contains("    \"kept\" : [\n\n    ],\n    \"keptCount\" : 2,\n"), "\(status.standardOutput)")
        let jobd = try CapturedProcess.run(links + "/jobd-by-another-name", ["--help"])
        #expect(jobd.status == 0 && jobd.standardOutput.contains("The job scheduler daemon"), "\(jobd.standardOutput)")
    }

    @Test func listShowsNextElapsesThatMatchTheSchedules() throws {
        let before = Date().timeIntervalSince1970
        let setup = try Setup(jobs: [
            "hourly": Self.hourly,
            "soon": "[Job]\nOnStartupSec=10min\nExecStart=/bin/true\n",
        ])
        let (status, output) = try setup.jobctl(["list", "--json"])
        #expect(status == 0)
        let jobs = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        #expect(jobs.map { $0["name"] as? String } == ["soon", "hourly"], "sorted by next elapse")
        let after = Date().timeIntervalSince1970
        for (job, span) in [("soon", 600.0), ("hourly", 3600.0)] {
            let next = try #require(jobs.first { $0["name"] as? String == job }?["nextElapseUSec"] as? Double) / 1e6
            #expect(next >= before + span - 1 && next <= after + span + 1, "\(job): next elapse \(next)")
        }
        let (_, table) = try setup.jobctl(["list"])
        #expect(table.hasPrefix("NEXT"))
        #expect(table.contains("soon") && table.contains("OnStartupSec=10min"))
    }

    /// `jobctl list`'s table asks for a brief list: jobd leaves out what the table does not show.
    /// A list asked for as before, as `jobctl list --json` asks, has every field.
    @Test func aBriefListLeavesOutFilesCommandsAndDescriptions() throws {
        let setup = try Setup(jobs: ["hourly": "[Job]\nDescription=every hour\nOnCalendar=hourly\nExecStart=/bin/true\n"])
        func jobs(_ request: String) throws -> [[String: Any]] {
            let client = try RawClient(setup.runtime + "/jobd.sock")
            client.send(Array(request.utf8) + [10])
            let reply = try JSONSerialization.jsonObject(with: Data(client.readAll().utf8)) as? [String: Any]
            return reply?["jobs"] as? [[String: Any]] ?? []
        }
        let full = try jobs(#"{"version":1,"command":"list"}"#)
        let brief = try jobs(#"{"version":1,"command":"list","brief":true}"#)
        #expect(full.count == 1 && brief.count == 1)
        #expect(full.first?["file"] as? String == setup.config.path + "/jobs.d/hourly.job")
        #expect(full.first?["command"] as? String == "/bin/true" && full.first?["description"] as? String == "every hour")
        #expect(brief.first.map { Set($0.keys) } == full.first.map { Set($0.keys).subtracting(["file", "command", "description"]) })
        #expect(brief.first?["triggers"] as? [String] == ["OnCalendar=*-*-* *:00:00"])
        let (status, table) = try setup.jobctl(["list"])
        #expect(status == 0 && table.contains("hourly") && table.contains("OnCalendar=*-*-* *:00:00"), "\(table)")
    }

    /// Jobs that write the same trigger share its parsed list, and a reply makes each list's text
    /// once: every job still shows its own triggers.
    @Test func listShowsEachJobsOwnTriggers() throws {
        let daily = "[Job]\nOnCalendar=daily\nExecStart=/bin/true\n"
        let setup = try Setup(jobs: [
            "a": daily, "b": daily, "c": "[Job]\nOnCalendar=hourly\nExecStart=/bin/true\n", "d": daily,
            "e": "[Job]\nCron=5 4 * * *\nOnStartupSec=1h\nExecStart=/bin/true\n", "f": "[Job]\nCron=5 4 * * *\nExecStart=/bin/true\n",
        ])
        let (status, output) = try setup.jobctl(["list", "--json"])
        #expect(status == 0)
        let jobs = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        var triggers: [String: [String]] = [:]
        for job in jobs { triggers[job["name"] as? String ?? "?"] = job["triggers"] as? [String] }
        #expect(triggers == [
            "a": ["OnCalendar=*-*-* 00:00:00"], "b": ["OnCalendar=*-*-* 00:00:00"], "c": ["OnCalendar=*-*-* *:00:00"],
            "d": ["OnCalendar=*-*-* 00:00:00"], "e": ["Cron=5 4 * * *", "OnStartupSec=1h"], "f": ["Cron=5 4 * * *"],
        ])
    }

    @Test func runWaitReturnsTheJobsExitStatus() throws {
        let setup = try Setup(jobs: [
            "seven": "[Job]\nOnStartupSec=1h\nExecStart=/bin/sh -c 'exit 7'\n",
            "fine": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\n",
        ])
        #expect(try setup.jobctl(["run", "seven", "--wait"]).0 == 7)
        #expect(try setup.jobctl(["run", "fine", "--wait"]).0 == 0)
        #expect(try setup.jobctl(["run", "nosuchjob"]).0 == 1)
        let (status, output) = try setup.jobctl(["status", "seven", "--json"])
        #expect(status == 3, "the last run failed: exit 3, as systemctl status")
        #expect(output.contains("\"lastOutcome\" : \"exited with status 7\""))
    }

    /// Every user reaches the socket (mode 0666), and the peer-credential check decides: a user who is
    /// neither root nor a reader acts on their own jobs alone (issue 29), and sees none of root's.
    @Test func aUserWhoIsNotAllowedIsRefused() throws {
        let setup = try Setup(jobs: ["hourly": Self.hourly])
        var status = stat()
        #expect(stat(setup.runtime + "/jobd.sock", &status) == 0 && status.st_mode & 0o777 == 0o666)
        for command in [["status"], ["status", "hourly"], ["run", "hourly"], ["reload"]] {
            let (refused, output) = try setup.jobctl(command, as: Self.nobody)
            #expect(refused == 4, "exit 4, as systemctl for insufficient privileges: \(command): \(output)")
            #expect(output.contains("permission denied: "), "\(command): \(output)")
        }
        let (listed, list) = try setup.jobctl(["list"], as: Self.nobody)
        #expect(listed == 0 && !list.contains("hourly"), "a user lists their own jobs alone: \(list)")
        #expect(!setup.daemon.events("run.start").contains { $0.field("JOB") == "hourly" }, "the refused run did not start")
        #expect(try setup.jobctl(["status"]).0 == 0, "root is still served")
    }

    /// jobd, ready, whose readers' group is `nogroup` (through the test seam, since a test must not
    /// add groups to the machine), with the test's directories open to readers, as /run/jobd is.
    static func daemonWithReaders(jobs: [String: String]) throws -> (TemporaryConfiguration, String, DaemonProcess) {
        let config = try TemporaryConfiguration(jobs: jobs)
        let runtime = config.path + "/run"
        var environment = ProcessInfo.processInfo.environment
        environment["JOBD_READERS_GROUP"] = "nogroup"
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime], environment: environment)
        try daemon.waitForEvent("daemon.ready")
        chmod(config.path, 0o755)
        return (config, runtime, daemon)
    }

    /// Members of the readers' group (`jobd`; here `nogroup`, through the test seam, since a test
    /// must not add groups to the machine) may list and look, and nothing else.
    @Test func membersOfTheReadersGroupMayLookButNotTouch() throws {
        let (config, runtime, daemon) = try Self.daemonWithReaders(jobs: ["hourly": Self.hourly])
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
            withExtendedLifetime(config) {}
        }
        func jobctl(_ arguments: [String], as user: (uid: UInt32, gid: UInt32)) throws -> (Int32, String) {
            try Jobctl(runtime: runtime, environment: nil)(arguments, as: user)
        }
        let reader = Self.nobody  // nogroup is its group
        #expect(try jobctl(["list"], as: reader).0 == 0)
        let (status, statusOutput) = try jobctl(["status", "hourly"], as: reader)
        #expect(status == 0 && statusOutput.contains("OnStartupSec=1h"), "\(statusOutput)")
        for command in [["run", "hourly"], ["stop", "hourly"], ["disable", "hourly"], ["reload"]] {
            let (refused, output) = try jobctl(command, as: reader)
            #expect(refused == 4, "\(command): \(output)")
            #expect(output.contains("needs root") || output.contains("permission denied"), "\(command): \(output)")
        }
        #expect(!daemon.events("run.start").contains { $0.field("JOB") == "hourly" }, "the refused run did not start")
        // Outside the group (gid 100, users): their own jobs only, so none of these.
        let (outsider, outsiderOutput) = try jobctl(["list"], as: (uid: 65_534, gid: 100))
        #expect(outsider == 0 && !outsiderOutput.contains("hourly"), "\(outsiderOutput)")
        let (looked, lookedOutput) = try jobctl(["status", "hourly"], as: (uid: 65_534, gid: 100))
        #expect(looked == 4 && lookedOutput.contains("permission denied"), "\(lookedOutput)")
    }

    /// A reader sees a job's command, description and errors only if it could read the job file: a
    /// 0600 file's command line (a token in it) and broken lines stay root's.
    @Test func readersSeeOnlyWhatTheyCouldRead() throws {
        let (config, runtime, daemon) = try Self.daemonWithReaders(jobs: [
            "open": "[Job]\nDescription=open to all\nOnStartupSec=1h\nExecStart=/bin/echo public\n",
            "secret": "[Job]\nDescription=a private one\nOnStartupSec=1h\nExecStart=/usr/bin/curl -H token:s3cr3t https://example.com\n",
            "broken": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\nPassword=hunter2\n",
        ])
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
            withExtendedLifetime(config) {}
        }
        chmod(config.path + "/jobs.d", 0o755)
        chmod(config.path + "/jobs.d/open.job", 0o644)
        chmod(config.path + "/jobs.d/secret.job", 0o600)
        chmod(config.path + "/jobs.d/broken.job", 0o600)
        func jobctl(_ arguments: [String]) throws -> (Int32, String) {
            try Jobctl(runtime: runtime, environment: nil)(arguments, as: (uid: 65_534, gid: 65_534))
        }
        let (_, open) = try jobctl(["status", "open"])
        #expect(open.contains("/bin/echo public") && open.contains("open to all"), "\(open)")
        let (_, secret) = try jobctl(["status", "secret"])
        #expect(!secret.contains("s3cr3t") && !secret.contains("a private one") && secret.contains("not shown"), "\(secret)")
        let (_, list) = try jobctl(["list", "--json"])
        #expect(!list.contains("s3cr3t") && !list.contains("hunter2") && list.contains("/bin/echo public"), "\(list)")
        let (_, table) = try jobctl(["list", "--failed"])
        #expect(!table.contains("Password") && table.contains("broken"), "\(table)")
        // Root sees everything, as before.
        let (_, rootList) = try setupless(["list", "--json"], runtime: runtime)
        #expect(rootList.contains("s3cr3t") && rootList.contains("Password"), "\(rootList)")
    }

    func setupless(_ arguments: [String], runtime: String) throws -> (Int32, String) {
        let process = try DaemonProcess(product: "jobctl", arguments: arguments + ["--runtime-dir", runtime])
        return (try process.waitForExit(), process.lines.joined(separator: "\n"))
    }

    @Test func abusiveClientsLeaveTheDaemonServing() throws {
        let setup = try Setup(jobs: ["hourly": Self.hourly])
        let socket = setup.runtime + "/jobd.sock"

        // Garbage gets an error reply.
        let garbage = try RawClient(socket)
        garbage.send(Array("this is not json\n".utf8))
        #expect(garbage.readAll().contains("malformed request"))

        // A half-sent request: the daemon answers others meanwhile, and drops it after its timeout.
        let half = try RawClient(socket)
        half.send(Array(#"{"version":1,"comm"#.utf8))
        #expect(try setup.jobctl(["status"]).0 == 0)

        // A 10 MB request is cut off with an error, not read into memory.
        let huge = try RawClient(socket)
        huge.send([UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20))
        #expect(huge.readAll().contains("request too large"))

        // A client that disconnects before reading its reply.
        for _ in 0..<20 {
            let rude = try RawClient(socket)
            rude.send(Array(#"{"version":1,"command":"list"}"#.utf8) + [10])
        }
        // A request of another protocol version.
        let future = try RawClient(socket)
        future.send(Array(#"{"version":2,"command":"list"}"#.utf8) + [10])
        #expect(future.readAll().contains("unsupported protocol version 2"))

        let (status, output) = try setup.jobctl(["status"])
        #expect(status == 0)
        #expect(output.contains("Generation: 1, 1 job(s)"))
        #expect(half.readAll().isEmpty, "the half request was closed without an answer")
    }
}

/// A bare client on a Unix socket, for sending what jobctl never would.
final class RawClient {
    let fd: Int32

    init(_ path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(result == 0, "connect: errno \(errno)")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends what it can; the daemon may close the connection part-way, which is the point.
    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Everything until the daemon closes the connection.
    func readAll(timeout seconds: Int = 10) -> String {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data += buffer[..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }
}

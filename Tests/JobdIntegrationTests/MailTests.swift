import Foundation
import JobdTestKit
import Testing

/// `MailTo=`: a run's output mailed as cron mails it to `MAILTO`, through a stub sendmail
/// (jobd.conf's `Sendmail=`) that records its arguments, its uid and the message.
@Suite(.serialized) struct MailTests {
    /// jobd on `jobs` with a stub sendmail; the stub's records, one file per mail, go to `mails`.
    final class Setup {
        let config: TemporaryConfiguration
        let daemon: DaemonProcess
        let mails: String
        let runtime: String

        init(jobs: [String: String]) throws {
            config = try TemporaryConfiguration(jobs: jobs)
            // Open to every user: a User= job's mail is sent as that user.
            let directory = config.path + "/mail"
            mails = directory + "/sent"
            try FileManager.default.createDirectory(atPath: mails, withIntermediateDirectories: true)
            chmod(config.path, 0o755)
            chmod(directory, 0o755)
            chmod(mails, 0o777)
            let stub = directory + "/sendmail"
            try """
                #!/bin/sh
                file=$(mktemp "\(mails)/mail.XXXXXX")
                { echo "uid=$(id -u)"; echo "args=$*"; cat; } >"$file"

                """.write(toFile: stub, atomically: true, encoding: .utf8)
            chmod(stub, 0o755)
            try "[Daemon]\nSendmail=\(stub)\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
            runtime = config.path + "/run"
            daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime])
            try daemon.waitForEvent("daemon.ready")
        }

        /// Runs `job` and waits for its end; with `mailed`, for its `run.mail` too.
        func run(_ job: String, mailed: Bool) throws {
            let run = try DaemonProcess(product: "jobctl", arguments: ["run", job, "--wait", "--quiet", "--runtime-dir", runtime])
            _ = try run.waitForExit()
            if mailed { try daemon.waitForEvent("run.mail", fields: ["JOB": job]) }
        }

        /// The recorded mails, each as its lines.
        func sent() throws -> [[String]] {
            try FileManager.default.contentsOfDirectory(atPath: mails).sorted().map {
                try String(contentsOfFile: mails + "/" + $0, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            }
        }

        deinit {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
    }

    @Test func outputIsMailedToEachJobsOwnRecipientsAndSilenceIsNot() throws {
        let setup = try Setup(jobs: [
            "talks": "[Job]\nExecStart=/bin/echo all is well\nMailTo=ops@example.com\n",
            "silent": "[Job]\nExecStart=/bin/true\nMailTo=ops@example.com\n",
            "other": "[Job]\nExecStart=/bin/sh -c 'echo disk full >&2; exit 2'\nMailTo=dba@example.com, oncall@example.com\n",
            "unmailed": "[Job]\nExecStart=/bin/echo nobody reads this\n",
        ])
        try setup.run("talks", mailed: true)
        try setup.run("silent", mailed: false)
        try setup.run("unmailed", mailed: false)
        try setup.run("other", mailed: true)
        let mails = try setup.sent()
        #expect(mails.count == 2, "\(mails)")
        let talks = try #require(mails.first { $0.contains("To: ops@example.com") })
        #expect(talks.contains("args=-Fjobd -i -B8BITMIME -oem ops@example.com"))
        #expect(talks.contains { $0.hasPrefix("Subject: Cron <root@") && $0.hasSuffix("> /bin/echo all is well") }, "\(talks)")
        #expect(talks.contains("X-Jobd-Job: talks") && talks.contains("Content-Type: text/plain; charset=UTF-8"))
        // The body follows the headers' blank line: the run's output.
        #expect(Array(talks.drop { !$0.isEmpty }.dropFirst()) == ["all is well", ""], "\(talks)")
        let other = try #require(mails.first { $0.contains("To: dba@example.com, oncall@example.com") })
        #expect(other.contains("args=-Fjobd -i -B8BITMIME -oem dba@example.com oncall@example.com"))
        #expect(other.contains { $0.hasSuffix(" (failed)") && $0.hasPrefix("Subject: Cron <root@") }, "\(other)")
        #expect(other.contains("disk full"))
    }

    /// MailOn=failure mails a failed run only; a User= job's mail is sent as its user, as cron sends it.
    @Test func mailOnFailureAndTheJobsUser() throws {
        let setup = try Setup(jobs: [
            "fine": "[Job]\nExecStart=/bin/echo fine\nMailTo=ops@example.com\nMailOn=failure\n",
            "broke": "[Job]\nExecStart=/bin/false\nMailTo=ops@example.com\nMailOn=failure\nUser=nobody\n",
        ])
        try setup.run("fine", mailed: false)
        try setup.run("broke", mailed: true)
        let mails = try setup.sent()
        #expect(mails.count == 1, "\(mails)")
        #expect(mails.first?.first == "uid=65534", "sendmail ran as the job's user: \(mails)")
        #expect(mails.first?.contains { $0.hasPrefix("Subject: Cron <nobody@") && $0.hasSuffix("> /bin/false (failed)") } == true, "\(mails)")
    }
}

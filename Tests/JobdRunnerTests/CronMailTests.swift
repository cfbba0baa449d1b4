import JobdConfig
import JobdRunner
import Testing

/// The mail of a job read from cron's files is Debian's cron's (issue 38 item 3): its subject with
/// the command as written, `MAILFROM` where cron takes it, and an `X-Cron-Env:` for each variable.
@Suite struct CronMailTests {
    static func origin(mailFrom: String?) -> CronOrigin {
        CronOrigin(file: "/etc/cron.d/sysstat", line: 3, user: "root", command: "command -v debian-sa1 > /dev/null && debian-sa1 1 1",
                   environment: ["MAILTO=ops@example.org", "MAILFROM=" + (mailFrom ?? ""), "SHELL=/bin/sh", "HOME=/root",
                                 "PATH=/usr/bin:/bin", "LOGNAME=root"],
                   mailTo: "ops@example.org", mailFrom: mailFrom)
    }

    static func headers(_ message: [UInt8]) -> [String] {
        let text = String(decoding: message, as: UTF8.self)
        return (text.firstRange(of: "\n\n").map { text[..<$0.lowerBound] } ?? "").split(separator: "\n").map(String.init)
    }

    @Test func theHeadersAreDebianCronsInItsOrder() {
        let message = RunMail.cronMessage(Self.origin(mailFrom: "cron@example.org"), host: "web1", job: "cron.d-sysstat-0a1b2c3d",
                                          runID: "7", output: Array("line 1\nerror 2\nline 3\n".utf8), omitted: 0)
        #expect(Self.headers(message) == [
            "From: cron@example.org",
            "To: ops@example.org",
            "Subject: Cron <root@web1> command -v debian-sa1 > /dev/null && debian-sa1 1 1",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: 8bit",
            "X-Cron-Env: <MAILTO=ops@example.org>",
            "X-Cron-Env: <MAILFROM=cron@example.org>",
            "X-Cron-Env: <SHELL=/bin/sh>",
            "X-Cron-Env: <HOME=/root>",
            "X-Cron-Env: <PATH=/usr/bin:/bin>",
            "X-Cron-Env: <LOGNAME=root>",
            "X-Jobd-Job: cron.d-sysstat-0a1b2c3d",
            "X-Jobd-Run-ID: 7",
        ])
        #expect(String(decoding: message, as: UTF8.self).hasSuffix("\n\nline 1\nerror 2\nline 3\n"))
    }

    @Test func aMailfromCronWouldNotTakeIsRootCronDaemon() {
        for mailFrom in [nil, "", "-oi@x", "a b@example.org", "ops;rm@x"] {
            let message = RunMail.cronMessage(Self.origin(mailFrom: mailFrom), host: "web1", job: "j", runID: "1", output: [], omitted: 0)
            #expect(Self.headers(message).first == "From: root (Cron Daemon)", "\(String(describing: mailFrom))")
        }
    }
}

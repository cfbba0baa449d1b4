import Foundation
import JobdTestKit
import Testing

/// An /etc/cron.d-style file imported by the real jobctl and run by the real jobd.
@Suite(.serialized) struct CronDaemonTests {
    @Test func anImportedCronDFileRunsUnderJobd() throws {
        let config = try TemporaryConfiguration()
        let crontab = config.path + "/cron.d-example"
        try """
            # /etc/cron.d/example
            SHELL=/bin/sh
            GREETING = "hello,  world "
            MAILTO=""
            @reboot root  printf '[\\%s]\\n' "$GREETING" "$SHELL" "$(pwd)"; cat; exit 0%first line%100\\% sure%
            */10 * * * * root echo "costs \\$5 and 50\\%"; od -An -c%a'b"c$HOME%\\

            """.write(toFile: crontab, atomically: true, encoding: .utf8)
        let importer = try DaemonProcess(product: "jobctl", arguments: ["import", "cron", "--system", crontab, "--output", config.path + "/jobs.d"])
        let importStatus = try importer.waitForExit()
        // The last line's input ends in a backslash with no newline: the one thing not carried over.
        #expect(importStatus == 1, "\(importer.lines)")
        #expect(importer.lines.filter { $0.contains(": not carried over:") }.count == 1, "\(importer.lines)")
        #expect(importer.lines.contains("\(crontab):5: imported: printf.job"), "\(importer.lines)")
        #expect(importer.lines.contains("\(crontab):6: imported: echo.job"), "\(importer.lines)")

        let runtime = config.path + "/run"
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime, "--state-dir", config.path + "/state"])
        defer {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
        }
        // @reboot: jobd's first start in this boot, with a fresh state directory, runs it.
        try daemon.waitForEvent("run.exit", fields: ["JOB": "printf"])
        // Debian's cron drops the blank at the end of a value, also inside its quotes.
        #expect(output(of: "printf", in: daemon) == ["[hello,  world]", "[/bin/sh]", "[/root]", "first line", "100% sure"])

        // Read after jobd logged the run's end: run --wait may answer before the last output line.
        let (status, said) = try Jobctl(runtime: runtime, daemon: daemon, environment: nil)(["run", "echo", "--wait"])
        #expect(status == 0, "\(said)")
        #expect(output(of: "echo", in: daemon) == ["costs $5 and 50%", #"   a   '   b   "   c   $   H   O   M   E  \n   \  \n"#])
    }

    func output(of job: String, in daemon: DaemonProcess) -> [String] {
        daemon.events("run.output").filter { $0.field("JOB") == job }.map(\.message)
    }
}

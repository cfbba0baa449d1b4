package import JobdConfig

extension RunMail {
    /// The message of a job read from cron's files, as Debian's cron (3.0pl1-162, `child_process`)
    /// writes it: `From:` its `MAILFROM` where cron would take it, else `root (Cron Daemon)`; `To:`
    /// its `MAILTO` as written, else the user; the subject with the command as the crontab has it;
    /// its `CONTENT_TYPE` and `CONTENT_TRANSFER_ENCODING`; an `X-Cron-Env:` header for each variable
    /// cron set; then jobd's own two headers, which name the run. No ` (failed)`: Debian's cron
    /// adds none at its default log level, and mail filters match the subject as cron writes it.
    package static func cronMessage(
        _ origin: CronOrigin, host: String, job: String, runID: String, output: [UInt8], omitted: Int
    ) -> [UInt8] {
        let variables = Dictionary(origin.environment.map { entry -> (String, String) in
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }, uniquingKeysWith: { $1 })
        let from = origin.mailFrom.flatMap { isCronSafe($0) ? $0 : nil } ?? "root (Cron Daemon)"
        var headers = [
            "From: \(oneLine(from))",
            "To: \(oneLine(origin.mailTo.flatMap { $0.isEmpty ? nil : $0 } ?? origin.user))",
            "Subject: Cron <\(oneLine(origin.user))@\(host)> \(oneLine(origin.command))",
            "MIME-Version: 1.0",
            "Content-Type: " + (variables["CONTENT_TYPE"].map(oneLine) ?? "text/plain; charset=UTF-8"),
            "Content-Transfer-Encoding: " + (variables["CONTENT_TRANSFER_ENCODING"].map(oneLine) ?? "8bit"),
        ]
        headers += origin.environment.map { "X-Cron-Env: <\(oneLine($0))>" }
        headers += ["X-Jobd-Job: \(job)", "X-Jobd-Run-ID: \(runID)"]
        var bytes = Array((headers.joined(separator: "\n") + "\n\n").utf8) + output
        if omitted > 0 {
            bytes += Array("\n[jobd: \(omitted) more byte(s) of output are not in this mail: jobctl logs \(job) --run \(runID)]\n".utf8)
        }
        return bytes
    }

    /// cron's `safe_p`: ASCII letters and digits, and after the first character `@!:%-.,_+=/`.
    static func isCronSafe(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.enumerated().allSatisfy { index, scalar in
            guard scalar.isASCII else { return false }
            return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || (index > 0 && "@!:%-.,_+=/".unicodeScalars.contains(scalar))
        }
    }

    /// A header is one line: a control character becomes a blank.
    private static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : Character($0) })
    }
}

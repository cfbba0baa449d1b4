import Glibc
import JobdProcess
import JobdConfig
import JobdLocks
import JobdLogging
import Logging

#if canImport(System)
import System
#else
import SystemPackage
#endif

/// What a run with `MailTo=` wrote, for its mail: its lines in the order jobd logged them (standard
/// output and error together, as cron's one pipe has them), up to ``limit`` bytes.
final class MailedOutput: Sendable {
    /// A mail's body at most: more is left to the journal, and the mail says so.
    static let limit = 1 << 20
    private let state = LockedBox<(bytes: [UInt8], omitted: Int)>(([], 0))

    func append(_ line: String) {
        state.withLock { state in
            let size = line.utf8.count + 1
            guard state.bytes.count + size <= Self.limit else {
                state.omitted += size
                return
            }
            state.bytes.append(contentsOf: line.utf8)
            state.bytes.append(UInt8(ascii: "\n"))
        }
    }

    var text: (bytes: [UInt8], omitted: Int) { state.withLock { $0 } }
}

/// A run's output mailed as cron mails a job's output to `MAILTO`: to each `MailTo=` recipient,
/// through sendmail (`-i`: a line with a lone `.` does not end the message), run as the job's user
/// as cron runs it as the crontab's owner, with cron's subject (`Cron <USER@HOST> COMMAND`, and
/// ` (failed)` after a failure) so that mail filters written for cron keep working.
package struct RunMail: Sendable, Equatable {
    package var recipients: [String]
    package var message: [UInt8]
    /// Who sendmail runs as: the run's `User=`; `nil` for jobd's own user.
    var account: Account?
    var fields: [String: String]
    /// What the mail carries, for `run.mail`'s message: "output", or "overdue alarm".
    var content = "output"

    /// The mail run `fields[JOBD_RUN_ID]` of `definition` is to send, or `nil` when its `MailOn=`
    /// says none: with `output` (cron's way), whenever it wrote anything; with `failure`, when it failed.
    static func due(
        _ definition: JobDefinition, result: RunResult, output: MailedOutput, account: Account?, fields: [String: String]
    ) -> RunMail? {
        let (bytes, omitted) = output.text
        let wrote = !bytes.isEmpty || omitted > 0
        switch definition.mailOn {
        case .output where !wrote: return nil
        case .failure where !result.isFailure: return nil
        default: break
        }
        let runID = fields[JobdField.runID] ?? ""
        // A cron line's mail is cron's, with the command as the crontab has it (RunMail+Cron.swift).
        let message = if let origin = definition.cron {
            cronMessage(origin, host: shortHostName(), job: definition.name, runID: runID, output: bytes, omitted: omitted)
        } else {
            message(
                recipients: definition.mailTo, user: userName(account), host: shortHostName(), command: definition.command.text,
                job: definition.name, runID: runID, failed: result.isFailure, output: bytes, omitted: omitted)
        }
        return RunMail(recipients: definition.mailTo, message: message, account: account, fields: fields)
    }

    /// The host's name up to its first dot, as cron's subject has it.
    static func shortHostName() -> String {
        var host = [UInt8](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        return String(decoding: host.prefix { $0 != 0 }, as: UTF8.self).split(separator: ".").first.map(String.init) ?? "localhost"
    }

    /// Who the run is (and sendmail runs as): `account`'s user, else jobd's own.
    static func userName(_ account: Account?) -> String {
        account?.userName ?? getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
    }

    /// The message, headers and body, as sendmail takes it on its standard input.
    package static func message(
        recipients: [String], user: String, host: String, command: String, job: String, runID: String, failed: Bool,
        output: [UInt8], omitted: Int, marker: String? = nil
    ) -> [UInt8] {
        // A header is one line: nothing of the command may start another.
        let subjectCommand = String(command.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : Character($0) })
        var text = """
            From: root (jobd)
            To: \(recipients.joined(separator: ", "))
            Subject: Cron <\(user)@\(host)> \(subjectCommand)\(marker ?? (failed ? " (failed)" : ""))
            MIME-Version: 1.0
            Content-Type: text/plain; charset=UTF-8
            Content-Transfer-Encoding: 8bit
            Auto-Submitted: auto-generated
            X-Jobd-Job: \(job)
            X-Jobd-Run-ID: \(runID)


            """
        var bytes = Array(text.utf8) + output
        if omitted > 0 {
            text = "\n[jobd: \(omitted) more byte(s) of output are not in this mail: jobctl logs \(job) --run \(runID)]\n"
            bytes += Array(text.utf8)
        }
        return bytes
    }
}

extension JobRunner {
    /// Hands `mail` to `sendmail` (jobd.conf's `Sendmail=`), as the run's user, with an environment
    /// of jobd's own (nothing of the job's), and logs `run.mail`. Never throws: a mail that cannot
    /// go out is logged, and the output is in the journal anyway.
    package func mail(_ mail: RunMail, sendmail: String = DaemonSettings.defaultSendmail) async {
        let job = mail.fields[JobdField.job] ?? "?"
        var fields = mail.fields
        fields[JobdField.recipients] = mail.recipients.joined(separator: ",")
        guard access(sendmail, X_OK) == 0 else {
            logger.event(.runMail, level: .notice, "\(job)'s \(mail.content) was not mailed: \(sendmail) is not installed (no mail transfer agent)", fields)
            return
        }
        let argv = [sendmail, "-Fjobd", "-i", "-B8BITMIME", "-oem"] + mail.recipients
        // jobd's fixed environment, never the job's.
        let environment = ["PATH": JobRunner.defaultPath, "LANG": "C.UTF-8"]
        var executable = sendmail, arguments = Array(argv.dropFirst()), input = mail.message, own = environment
        if let account = mail.account, account.userName != nil {
            // As cron, as the job's user: through jobd-cgexec, the one switch of credentials, with
            // the message after its plan on the same stdin.
            guard let trampoline = Trampoline.located else {
                logger.event(.runMail, level: .warning, "\(job)'s \(mail.content) was not mailed: \(Trampoline.missing)", fields)
                return
            }
            executable = trampoline
            arguments = []
            own = [:]
            input = Trampoline.mailPlan(account, argv: argv, environment: environment).encoded() + mail.message
        }
        let (program, plan, message, variables) = (executable, arguments, input, own)
        let ran = await SystemRunDriver.aside {
            HelperProcess.run(program, arguments: plan, environment: variables, input: message)
                .mapError { RunPreparationError(description: $0.description) }
        }
        switch ran {
        case .success(let result) where result.exit == .exited(0):
            logger.event(.runMail, "\(job)'s \(mail.content) (\(mail.message.count) bytes with headers) was mailed to "
                         + mail.recipients.joined(separator: ", "), fields)
        case .success(let result):
            let said = result.errorText.split(separator: "\n").first.map { ": \($0)" } ?? ""
            logger.event(.runMail, level: .warning, "\(job)'s \(mail.content) was not mailed: \(sendmail) \(result.status)\(said)", fields)
        case .failure(let error):
            logger.event(.runMail, level: .warning, "\(job)'s \(mail.content) was not mailed: cannot start \(sendmail): \(error)", fields)
        }
    }
}

import JobdCalendar
import JobdConfig
import JobdTimers

/// What of a job's history outlives jobd: its last start (when and why), its last finished run
/// and its last success, on the wall clock, so that `jobctl list --failed`, `status` and the
/// metrics say after a restart or an upgrade what they said before it. Not kept: the monotonic
/// instants (a restarted jobd's schedule counts from its own start, as before), the last trigger
/// (`Persistent=` keeps its own stamp) and the run counters (counters start again with jobd, as
/// Prometheus expects of a restarted process).
///
/// The text is one `KEY=VALUE` line a field, in a fixed order; a reader skips keys it does not
/// know, so a newer jobd's file reads in an older one.
extension JobHistory {
    /// The text kept in the state directory, or `nil` when there is nothing worth keeping.
    package var savedText: String? {
        guard lastStartRealtime != nil || lastRun != nil else { return nil }
        var lines: [String] = []
        func add(_ key: String, _ value: String?) {
            if let value { lines.append(SavedFields.line(key, value)) }
        }
        add("start", lastStartRealtime.map { String($0.microseconds) })
        add("cause", lastStartCause)
        add("finish", lastFinishRealtime.map { String($0.microseconds) })
        add("success", lastSuccessRealtime.map { String($0.microseconds) })
        if let lastRun {
            let termination = lastRun.termination
            add("result", lastRun.result.rawValue)
            add("exit-code", termination.exitCode)
            add("exit-status", termination.exitStatus)
            add("shell-status", String(termination.shellStatus))
            add("outcome", termination.description)
            add("duration-usec", String(lastRun.duration.microseconds))
            add("run-id", lastRun.invocationID)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The history of `job` that `text` (``savedText``) describes; `nil` when it describes none
    /// (empty, or a last run without a result jobd knows). Malformed values are left out, never
    /// guessed: a last run whose exit code, status and outcome describe no termination too. The
    /// shell status is the termination's; the run's number is 0 (it was an earlier jobd's).
    package init?(savedText text: Substring, job: String) {
        let values = SavedFields.values(of: text)
        func instant(_ key: Substring) -> RealtimeInstant? {
            values[key].flatMap { Int64($0) }.flatMap { $0 >= 0 ? RealtimeInstant(microseconds: $0) : nil }
        }
        self.init()
        lastStartRealtime = instant("start")
        lastStartCause = values["cause"].map(String.init)
        lastFinishRealtime = instant("finish")
        lastSuccessRealtime = instant("success")
        func string(_ key: Substring) -> String { values[key].map(String.init) ?? "" }
        if let result = values["result"].flatMap({ RunResult(rawValue: String($0)) }),
           let termination = RunTermination(exitCode: string("exit-code"), exitStatus: string("exit-status"), description: string("outcome")) {
            lastRun = RunOutcome(
                runID: 0, invocationID: string("run-id"), job: job, termination: termination, result: result,
                duration: TimeSpan(microseconds: values["duration-usec"].flatMap { UInt64($0) } ?? 0))
        }
        guard lastStartRealtime != nil || lastRun != nil else { return nil }
        pace = Pace(values)
    }

    /// A history as a state writer takes it, turned into its text only when written: at a run's
    /// end a job's history is handed in, and replaced by the next run's within the writer's pause.
    package struct Saved: Sendable {
        package var history: JobHistory
        /// The boot whose monotonic instants go with it (``savedText(pace:)``): for a handover.
        package var paceBoot: String?
        package init(_ history: JobHistory, paceBoot: String? = nil) {
            self.history = history
            self.paceBoot = paceBoot
        }
        package var text: String? { paceBoot.map(history.savedText(pace:)) ?? history.savedText }
    }

    /// The text a handover keeps (issue 36): ``savedText`` and the monotonic instants its
    /// `OnUnitActiveSec=`/`OnUnitInactiveSec=` count from, with the boot they belong to. Only the
    /// next jobd of the same boot takes them (``restoringPace(inBoot:)``), so that an every-second
    /// job keeps its pace across a restart, as systemd's timers keep theirs across a daemon-reexec;
    /// a stop and a start count from the start, as before.
    package func savedText(pace bootID: String) -> String? {
        var text = savedText ?? (lastTrigger != nil ? "" : nil)
        guard text != nil else { return nil }
        func add(_ key: String, _ value: MonotonicInstant?) {
            if let value { text! += SavedFields.line(key, String(value.nanoseconds)) + "\n" }
        }
        text! += SavedFields.line("pace-boot", bootID) + "\n"
        add("pace-start", lastStart)
        add("pace-trigger", lastTrigger)
        add("pace-finish", lastFinish)
        return text
    }

    /// This history with the monotonic instants a handover kept, when it kept them in `bootID`.
    package func restoringPace(inBoot bootID: String) -> JobHistory {
        guard let pace, pace.bootID == bootID else { return self }
        var restored = self
        (restored.lastStart, restored.lastTrigger, restored.lastFinish) = (pace.start, pace.trigger, pace.finish)
        restored.pace = nil
        return restored
    }
}

extension JobHistory {
    /// The monotonic instants a handover kept, as read back (``JobHistory/savedText(pace:)``).
    package struct Pace: Sendable, Equatable {
        var bootID: String
        var start: MonotonicInstant?
        var trigger: MonotonicInstant?
        var finish: MonotonicInstant?

        init?(_ values: [Substring: Substring]) {
            guard let boot = values["pace-boot"], !boot.isEmpty else { return nil }
            func instant(_ key: Substring) -> MonotonicInstant? { values[key].flatMap { UInt64($0) }.map { MonotonicInstant(nanoseconds: $0) } }
            (bootID, start, trigger, finish) = (String(boot), instant("pace-start"), instant("pace-trigger"), instant("pace-finish"))
        }
    }
}

/// The text of what jobd keeps of a job or a run in its state directory: one `KEY=VALUE` line a
/// field; a reader skips keys it does not know, so a newer jobd's file reads in an older one.
package enum SavedFields {
    /// `KEY=VALUE`: values come from jobd itself, never with a line break; one would end the line anyway.
    package static func line(_ key: String, _ value: String) -> String {
        let isBreak = { (byte: UInt8) in byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") }
        // Bytes, not characters: "\r\n" is one character, neither "\n" nor "\r".
        guard value.utf8.contains(where: isBreak) else { return key + "=" + value }
        return key + "=" + String(decoding: value.utf8.filter { !isBreak($0) }, as: UTF8.self)
    }

    /// Each key's value in `text`; a line without `=` is skipped.
    package static func values(of text: Substring) -> [Substring: Substring] {
        var values: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals]] = line[line.index(after: equals)...]
        }
        return values
    }
}

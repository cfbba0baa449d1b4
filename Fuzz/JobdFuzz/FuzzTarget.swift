import Foundation
import JobdAudit
import JobdCalendar
import JobdConfig
import JobdControl

/// A parser of jobd under the fuzzer, and what must hold for any input it is given.
///
/// Every target must not trap (no overflow, no out-of-range index, no force-unwrap of nil) on any
/// bytes; where it is cheap it also checks an invariant, and a broken invariant traps on purpose so
/// that libFuzzer reports the input like a crash.
enum FuzzTarget: String, CaseIterable {
    /// A job file through `JobFileReader.read(name:path:text:)`.
    case jobFile = "job-file"
    /// `OnCalendar=` expressions: parse, next elapses, and the normalized form read back.
    case calendar
    /// `Cron=` lines: parse, next elapses, and the normalized form read back.
    case cron
    /// Time spans: parse, and the description read back.
    case timeSpan = "time-span"
    /// A control request line as jobd's control socket reads it (``ControlRequest/init(jsonLine:)``,
    /// by hand): what it accepts is written back the same way, reads the same, is what
    /// `JSONEncoder` writes, and agrees with Foundation's decoder wherever both accept it.
    case controlRequest = "control-request"
    /// Journal entries (``FuzzJournal``) through the lifecycle audit.
    case audit
    /// A response line as jobctl reads it (``ControlResponse/init(jsonLine:)``, by hand, not
    /// Foundation's decoder): what it accepts is written back the same way and reads the same, and
    /// agrees with Foundation's decoder wherever both accept it.
    case controlResponse = "control-response"

    /// The target libFuzzer's callback runs; set once, before fuzzing starts, on the one thread
    /// that runs inputs.
    nonisolated(unsafe) static var selected = FuzzTarget.timeSpan

    /// Runs one input.
    func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .jobFile: Self.readJobFile(text)
        case .calendar: CalendarSpec.evaluate(text)
        case .cron: CronSpec.evaluate(text)
        case .timeSpan: Self.parseTimeSpan(text)
        case .controlRequest: Self.decodeControlRequest(bytes)
        case .audit: Self.audit(FuzzJournal(text).entries)
        case .controlResponse: Self.readControlResponse(bytes)
        }
    }

    /// Traps with `message` and the input when `condition` is false: a found bug, not a crash of
    /// the harness.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("invariant broken: \(message())") }
    }

    // MARK: The targets

    static let jobPath = "/etc/jobd/jobs.d/fuzz.job"

    static func readJobFile(_ text: String) {
        switch JobFileReader.read(name: "fuzz", path: jobPath, text: text) {
        case .success(let definition):
            _ = String(describing: definition)
        case .failure(let errors):
            // Every error names the file it is about.
            for error in errors.errors {
                require(error.description.hasPrefix(jobPath), "error without the file's name: \(error)")
            }
        }
    }

    static func parseTimeSpan(_ text: String) {
        guard let span = try? TimeSpan.parse(text) else { return }
        require(span.isInfinite || span <= TimeSpan.maximum, "'\(text)' is \(span), above the maximum")
        let again = try? TimeSpan.parse(span.description)
        require(again == span, "'\(text)' is \(span.microseconds) us, but its description '\(span)' reads as \(String(describing: again))")
    }

    static func decodeControlRequest(_ bytes: [UInt8]) {
        guard let request = try? ControlRequest(jsonLine: bytes) else { return }
        _ = request.streamsOutput
        let written = request.jsonLine
        let again = try? ControlRequest(jsonLine: Array(written.dropLast()))
        require(again == request, "\(request) does not survive writing as \(String(decoding: written, as: UTF8.self))")
        if let foundation = try? JSONDecoder().decode(ControlRequest.self, from: Data(bytes)) {
            require(foundation == request, "read by hand as \(request), by JSONDecoder as \(foundation)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let reference = (try? encoder.encode(request)).map(Array.init)
        require(reference.map { $0 + [UInt8(ascii: "\n")] } == written, "written as \(String(decoding: written, as: UTF8.self)), not as JSONEncoder writes it")
    }

    static func readControlResponse(_ bytes: [UInt8]) {
        guard let response = try? ControlResponse(jsonLine: bytes) else { return }
        let written = response.jsonLine
        let again = try? ControlResponse(jsonLine: Array(written.dropLast()))
        require(again == response, "\(response) does not survive writing as \(String(decoding: written, as: UTF8.self))")
        if let foundation = try? JSONDecoder().decode(ControlResponse.self, from: Data(bytes)) {
            require(foundation == response, "read by hand as \(response), by JSONDecoder as \(foundation)")
        }
    }

    static func audit(_ entries: [AuditEntry]) {
        let report = LifecycleAuditor.audit(entries)
        _ = report.text()
        let json = report.jsonData()
        let again = try? JSONDecoder().decode(AuditReport.self, from: Data(json))
        require(again == report, "the audit's JSON does not read back: \(String(decoding: json, as: UTF8.self))")
    }
}

/// A response line, written and read by hand through ``JSONWriter`` and ``JSONReader``, as every
/// part of it is (issue 30): the same text as the `Codable` conformance with sorted keys, which the
/// tests and the fuzz target check, but for a reload report's `kept` (``ReloadReport/write(to:)``).
extension ControlResponse {
    /// The response as one line of JSON, newline included.
    package var jsonLine: [UInt8] {
        var writer = JSONWriter(capacity: 256 + (jobs?.count ?? 0) * 320)
        writer.beginObject()
        if let code {
            writer.string("code", code.rawValue)
        }
        writer.optionalValue("daemon", daemon)
        writer.optionalStrings("fields", fields)
        if let jobStatus {
            writer.key("jobStatus")
            jobStatus.write(to: &writer)
        }
        if let jobs {
            writer.key("jobs")
            jobs.write(to: &writer)
        }
        writer.optionalString("line", line)
        writer.optionalInteger("lost", lost)
        writer.optionalString("message", message)
        writer.optionalValue("reload", reload)
        writer.optionalValue("run", run)
        writer.optionalValue("schedule", schedule)
        writer.optionalString("stream", stream)
        writer.optionalString("text", text)
        writer.optionalInteger("timeUSec", timeUSec)
        writer.string("type", type.rawValue)
        writer.integer("version", version)
        writer.endObject()
        writer.newline()
        return writer.bytes
    }

    /// A `list` response's line whose statuses are already written, in order, in `jobParts` (each
    /// by ``JSONWriter/beginElements()``, possibly on another thread): the same bytes as
    /// `ControlResponse(type: .list, jobs: jobs).jsonLine`.
    package static func listLine(jobParts: [[UInt8]]) -> [UInt8] {
        var writer = JSONWriter(capacity: jobParts.reduce(64) { $0 + $1.count + 1 })
        writer.beginObject()
        writer.key("jobs")
        writer.beginArray()
        for part in jobParts where !part.isEmpty { writer.raw(part) }
        writer.endArray()
        writer.string("type", Kind.list.rawValue)
        writer.integer("version", ControlProtocol.version)
        writer.endObject()
        writer.newline()
        return writer.bytes
    }

    /// Reads one response line (without its newline); `briefJobs`, the answer to a brief `list`
    /// (``ControlRequest/brief``), whose statuses may lack `command` and `file`.
    package init(jsonLine bytes: [UInt8], briefJobs: Bool = false) throws(ControlError) {
        var reader = JSONReader(bytes)
        var type: Kind?, version: Int?
        var response = ControlResponse(type: .error)
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "code": response.code = try reader.optionalString().map(ControlErrorCode.init(rawValue:))
            case "daemon": response.daemon = try reader.optional { (reader: inout JSONReader) throws(ControlError) in try DaemonStatus(reading: &reader) }
            case "fields": response.fields = try reader.optionalStrings()
            case "jobStatus": response.jobStatus = try reader.optional { (reader: inout JSONReader) throws(ControlError) in try JobStatus(reading: &reader) }
            case "jobs":
                response.jobs = try reader.optional { (reader: inout JSONReader) throws(ControlError) in
                    try reader.array(minimumElementBytes: JobStatus.minimumJSONBytes) { (reader: inout JSONReader) throws(ControlError) in
                        try JobStatus(reading: &reader, brief: briefJobs)
                    }
                }
            case "line": response.line = try reader.optionalString()
            case "lost": response.lost = try reader.optionalInteger()
            case "message": response.message = try reader.optionalString()
            case "reload": response.reload = try reader.optional { (reader: inout JSONReader) throws(ControlError) in try ReloadReport(reading: &reader) }
            case "run": response.run = try reader.optional { (reader: inout JSONReader) throws(ControlError) in try RunReport(reading: &reader) }
            case "schedule":
                response.schedule = try reader.optional { (reader: inout JSONReader) throws(ControlError) in try SchedulePreview(reading: &reader) }
            case "stream": response.stream = try reader.optionalString()
            case "text": response.text = try reader.optionalString()
            case "timeUSec": response.timeUSec = try reader.optionalInteger()
            case "type":
                let name = try reader.string()
                guard let kind = Kind(rawValue: name) else { throw ControlError(.protocolError, "unknown response type \(name)") }
                type = kind
            case "version": version = try reader.integer()
            default: try reader.skipValue()
            }
        }
        try reader.end()
        guard let type, let version else { throw ControlError(.protocolError, "a response lacks its type or version") }
        response.type = type
        response.version = version
        self = response
    }
}

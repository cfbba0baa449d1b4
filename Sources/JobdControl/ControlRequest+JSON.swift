/// A request line, written (jobctl) and read (jobd) by hand: the same text as the `Codable`
/// conformance with sorted keys, which the tests and the fuzz target check.
extension ControlRequest {
    /// The request as one line of JSON, newline included.
    package var jsonLine: [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.optionalBool("brief", brief)
        writer.string("command", command.rawValue)
        writer.optionalBool("followRetries", followRetries)
        writer.optionalBool("history", history)
        writer.optionalInteger("fromUSec", fromUSec)
        writer.optionalString("job", job)
        writer.optionalStrings("jobs", jobs)
        writer.optionalInteger("limit", limit)
        writer.optionalInteger("lines", lines)
        writer.optionalBool("output", output)
        writer.optionalString("path", path)
        writer.optionalString("text", text)
        writer.optionalInteger("untilUSec", untilUSec)
        writer.optionalString("user", user)
        writer.integer("version", version)
        writer.optionalBool("wait", wait)
        writer.endObject()
        writer.newline()
        return writer.bytes
    }

    /// Reads one request line (without its newline), as jobd's control socket does: keys in any
    /// order, unknown keys skipped, `null` for an absent option; an unknown command is an error.
    package init(jsonLine bytes: [UInt8]) throws(ControlError) {
        var reader = JSONReader(bytes)
        var version: Int?, command: Command?
        var request = ControlRequest(command: .status)
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "brief": request.brief = try reader.optionalBool()
            case "command":
                let name = try reader.string()
                guard let known = Command(rawValue: name) else { throw ControlError(.protocolError, "unknown command \(name)") }
                command = known
            case "followRetries": request.followRetries = try reader.optionalBool()
            case "history": request.history = try reader.optionalBool()
            case "fromUSec": request.fromUSec = try reader.optionalInteger()
            case "job": request.job = try reader.optionalString()
            case "jobs": request.jobs = try reader.optionalStrings()
            case "limit": request.limit = try reader.optionalInteger()
            case "lines": request.lines = try reader.optionalInteger()
            case "output": request.output = try reader.optionalBool()
            case "path": request.path = try reader.optionalString()
            case "text": request.text = try reader.optionalString()
            case "untilUSec": request.untilUSec = try reader.optionalInteger()
            case "user": request.user = try reader.optionalString()
            case "version": version = try reader.integer()
            case "wait": request.wait = try reader.optionalBool()
            default: try reader.skipValue()
            }
        }
        try reader.end()
        guard let version, let command else { throw ControlError(.protocolError, "a request lacks its version or command") }
        request.version = version
        request.command = command
        self = request
    }
}

/// A job's status as JSON, written and read by hand: the same text as its `Codable` conformance
/// with sorted keys (tests compare the two), at a fraction of the cost, since `jobctl list` sends
/// and reads one per job (issue 19). A field added to ``JobStatus`` must be added here too; the
/// tests fail until it is.
extension JobStatus {
    /// Writes the status as one object, keys sorted, absent optionals left out; `brief`, without
    /// `command` and `file` (a brief `list`: ``ControlRequest/brief``).
    package func write(to writer: inout JSONWriter, brief: Bool = false) {
        writer.beginObject()
        if !brief {
            writer.string("command", command)
        }
        writer.optionalStrings("conditions", conditions)
        writer.optionalString("description", description)
        writer.optionalBool("disabled", disabled)
        writer.optionalStrings("errors", errors)
        writer.optionalInteger("exposureTenths", exposureTenths)
        if !brief {
            writer.string("file", file)
        }
        writer.integer("generation", generation)
        writer.optionalInteger("lastDurationUSec", lastDurationUSec)
        writer.optionalString("lastExitStatus", lastExitStatus)
        writer.optionalInteger("lastFinishUSec", lastFinishUSec)
        writer.optionalString("lastNode", lastNode)
        writer.optionalString("lastOutcome", lastOutcome)
        writer.optionalString("lastResult", lastResult)
        writer.optionalString("lastRunID", lastRunID)
        writer.optionalString("lastStartCause", lastStartCause)
        writer.optionalInteger("lastStartUSec", lastStartUSec)
        writer.optionalInteger("lastTriggerUSec", lastTriggerUSec)
        writer.string("name", name)
        writer.optionalInteger("nextElapseUSec", nextElapseUSec)
        writer.optionalString("overlap", overlap)
        writer.integer("owner", owner)
        writer.optionalBool("persistent", persistent)
        writer.optionalInteger("retryUSec", retryUSec)
        writer.integer("running", running)
        if let runs {
            writer.key("runs")
            writer.beginArray()
            for run in runs { run.write(to: &writer) }
            writer.endArray()
        }
        if let security { writer.array("security", security) }
        writer.strings("triggers", triggers)
        writer.endObject()
    }

    /// Reads one status object, in any key order; unknown keys are skipped, as `JSONDecoder` does.
    /// `brief` (a brief `list`): `command` and `file` may be absent, and are then empty.
    package init(reading reader: inout JSONReader, brief: Bool = false) throws(ControlError) {
        var name: String?, file: String?, command: String?, triggers: [String]?
        var running: Int?, owner: UInt64?, generation: UInt64?
        var status = JobStatus(
            name: "", file: "", description: nil, command: "", triggers: [], nextElapseUSec: nil, lastTriggerUSec: nil,
            lastStartUSec: nil, lastFinishUSec: nil, lastOutcome: nil, running: 0, owner: 0, generation: 0)
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "command": command = try reader.string()
            case "conditions": status.conditions = try reader.optionalStrings()
            case "description": status.description = try reader.optionalString()
            case "disabled": status.disabled = try reader.optionalBool()
            case "errors": status.errors = try reader.optionalStrings()
            case "exposureTenths": status.exposureTenths = try reader.optionalInteger()
            case "file": file = try reader.string()
            case "generation": generation = try reader.integer()
            case "lastDurationUSec": status.lastDurationUSec = try reader.optionalInteger()
            case "lastExitStatus": status.lastExitStatus = try reader.optionalString()
            case "lastFinishUSec": status.lastFinishUSec = try reader.optionalInteger()
            case "lastNode": status.lastNode = try reader.optionalString()
            case "lastOutcome": status.lastOutcome = try reader.optionalString()
            case "lastResult": status.lastResult = try reader.optionalString()
            case "lastRunID": status.lastRunID = try reader.optionalString()
            case "lastStartCause": status.lastStartCause = try reader.optionalString()
            case "lastStartUSec": status.lastStartUSec = try reader.optionalInteger()
            case "lastTriggerUSec": status.lastTriggerUSec = try reader.optionalInteger()
            case "name": name = try reader.string()
            case "nextElapseUSec": status.nextElapseUSec = try reader.optionalInteger()
            case "overlap": status.overlap = try reader.optionalString()
            case "owner": owner = try reader.integer()
            case "persistent": status.persistent = try reader.optionalBool()
            case "retryUSec": status.retryUSec = try reader.optionalInteger()
            case "running": running = try reader.integer()
            case "runs":
                status.runs = try reader.optional { (reader: inout JSONReader) throws(ControlError) in
                    try reader.array { (reader: inout JSONReader) throws(ControlError) in try RunInFlight(reading: &reader) }
                }
            case "security":
                status.security = try reader.optional { (reader: inout JSONReader) throws(ControlError) in
                    try reader.array { (reader: inout JSONReader) throws(ControlError) in try SecurityCheck(reading: &reader) }
                }
            case "triggers": triggers = try reader.strings()
            default: try reader.skipValue()
            }
        }
        if brief {
            file = file ?? ""
            command = command ?? ""
        }
        guard let name, let file, let command, let triggers, let running, let owner, let generation else {
            throw ControlError(.protocolError, "a job's status lacks one of name, file, command, triggers, running, owner, generation")
        }
        status.name = name
        status.file = file
        status.command = command
        status.triggers = triggers
        status.running = running
        status.owner = owner
        status.generation = generation
        self = status
    }
}

extension [JobStatus] {
    /// Writes the statuses as an array, one object each.
    package func write(to writer: inout JSONWriter) {
        writer.beginArray()
        // By index: `for status in self` copies each status, retaining each of its strings.
        for index in indices { self[index].write(to: &writer) }
        writer.endArray()
    }
}

extension JobStatus {
    /// The shortest status there can be: `{"command":"","file":"","generation":0,"name":"",
    /// "owner":0,"running":0,"triggers":[]}`.
    package static let minimumJSONBytes = 85
}

extension JobStatus.RunInFlight {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("cause", cause)
        writer.string("invocationID", invocationID)
        writer.optionalInteger("pid", pid)
        writer.integer("runID", runID)
        writer.integer("startedUSec", startedUSec)
        writer.endObject()
    }

    package init(reading reader: inout JSONReader) throws(ControlError) {
        var cause: String?, invocationID: String?, pid: Int32?, runID: UInt64?, startedUSec: Int64?
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "cause": cause = try reader.string()
            case "invocationID": invocationID = try reader.string()
            case "pid": pid = try reader.optionalInteger()
            case "runID": runID = try reader.integer()
            case "startedUSec": startedUSec = try reader.integer()
            default: try reader.skipValue()
            }
        }
        guard let cause, let invocationID, let runID, let startedUSec else {
            throw ControlError(.protocolError, "a run in flight lacks one of cause, invocationID, runID, startedUSec")
        }
        self.init(runID: runID, invocationID: invocationID, pid: pid, startedUSec: startedUSec, cause: cause)
    }
}

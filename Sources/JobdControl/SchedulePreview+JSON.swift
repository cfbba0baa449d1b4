/// A schedule preview as JSON, written and read by hand as every part of a response is (issue 30).
extension SchedulePreview: JSONWritable {
    /// Writes the preview as one object, keys sorted.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.bool("accepted", accepted)
        writer.array("changes", changes)
        writer.array("elapses", elapses)
        writer.strings("errors", errors)
        writer.optionalBool("incomplete", incomplete)
        writer.integer("kept", kept)
        writer.integer("nowUSec", nowUSec)
        writer.endObject()
    }

    /// Reads one preview object, in any key order, unknown keys skipped.
    package init(reading reader: inout JSONReader) throws(ControlError) {
        var preview = SchedulePreview(nowUSec: 0)
        var now: Int64?
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "accepted": preview.accepted = try reader.bool()
            case "changes": preview.changes = try reader.array { (reader: inout JSONReader) throws(ControlError) in try Change(reading: &reader) }
            case "elapses": preview.elapses = try reader.array { (reader: inout JSONReader) throws(ControlError) in try Elapse(reading: &reader) }
            case "errors": preview.errors = try reader.strings()
            case "incomplete": preview.incomplete = try reader.optionalBool()
            case "kept": preview.kept = try reader.integer()
            case "nowUSec": now = try reader.integer()
            default: try reader.skipValue()
            }
        }
        guard let now else { throw ControlError(.protocolError, "a schedule preview lacks nowUSec") }
        preview.nowUSec = now
        self = preview
    }
}

extension SchedulePreview.Elapse: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("earliestUSec", earliestUSec)
        writer.string("job", job)
        writer.integer("latestUSec", latestUSec)
        writer.string("reason", reason)
        writer.optionalString("retries", retries)
        writer.string("trigger", trigger)
        writer.endObject()
    }

    package init(reading reader: inout JSONReader) throws(ControlError) {
        var job: String?, earliest: Int64?, latest: Int64?, trigger: String?, reason: String?, retries: String?
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "earliestUSec": earliest = try reader.integer()
            case "job": job = try reader.string()
            case "latestUSec": latest = try reader.integer()
            case "reason": reason = try reader.string()
            case "retries": retries = try reader.optionalString()
            case "trigger": trigger = try reader.string()
            default: try reader.skipValue()
            }
        }
        guard let job, let earliest, let latest, let trigger, let reason else {
            throw ControlError(.protocolError, "an elapse lacks one of job, earliestUSec, latestUSec, trigger, reason")
        }
        self.init(job: job, earliestUSec: earliest, latestUSec: latest, trigger: trigger, reason: reason, retries: retries)
    }
}

extension SchedulePreview.Change: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.optionalValue("after", after)
        writer.optionalValue("before", before)
        writer.string("job", job)
        writer.strings("keys", keys)
        writer.string("kind", kind)
        writer.endObject()
    }

    package init(reading reader: inout JSONReader) throws(ControlError) {
        var job: String?, kind: String?, keys: [String] = [], before: SchedulePreview.Elapse?, after: SchedulePreview.Elapse?
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "after": after = try reader.optional { (reader: inout JSONReader) throws(ControlError) in try SchedulePreview.Elapse(reading: &reader) }
            case "before": before = try reader.optional { (reader: inout JSONReader) throws(ControlError) in try SchedulePreview.Elapse(reading: &reader) }
            case "job": job = try reader.string()
            case "keys": keys = try reader.strings()
            case "kind": kind = try reader.string()
            default: try reader.skipValue()
            }
        }
        guard let job, let kind else { throw ControlError(.protocolError, "a change lacks its job or kind") }
        self.init(job: job, kind: kind, keys: keys, before: before, after: after)
    }
}

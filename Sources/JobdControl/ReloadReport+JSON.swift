/// A reload's report as JSON, written and read by hand (issue 30).
extension ReloadReport: JSONWritable {
    /// Writes the report as one object, keys sorted. `kept` is written as `keptCount`, and `kept`
    /// as an empty array: the jobctl before the count requires an array of names there, and then
    /// shows 0 kept instead of failing to read the reply.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.bool("accepted", accepted)
        writer.strings("added", added)
        writer.strings("changed", changed)
        writer.strings("errors", errors)
        writer.optionalInteger("finishedRealtimeUSec", finishedRealtimeUSec)
        writer.integer("generation", generation)
        writer.strings("kept", [])
        writer.integer("keptCount", kept)
        writer.strings("removed", removed)
        writer.integer("sequence", sequence)
        writer.endObject()
    }

    /// Reads one report object, in any key order, unknown keys skipped: from this jobd (`keptCount`)
    /// or one before it, whose `kept` names every kept job (counted here).
    package init(reading reader: inout JSONReader) throws(ControlError) {
        var sequence: UInt64?, accepted: Bool?, generation: UInt64?
        var added: [String]?, changed: [String]?, removed: [String]?, errors: [String]?
        var keptNames: [String]?, keptCount: Int?
        var finishedRealtimeUSec: Int64?
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "accepted": accepted = try reader.bool()
            case "added": added = try reader.strings()
            case "changed": changed = try reader.strings()
            case "errors": errors = try reader.strings()
            case "finishedRealtimeUSec": finishedRealtimeUSec = try reader.optionalInteger()
            case "generation": generation = try reader.integer()
            case "kept": keptNames = try reader.optionalStrings()
            case "keptCount": keptCount = try reader.integer()
            case "removed": removed = try reader.strings()
            case "sequence": sequence = try reader.integer()
            default: try reader.skipValue()
            }
        }
        guard let sequence, let accepted, let generation, let added, let changed, let removed, let errors,
              let kept = keptCount ?? keptNames?.count
        else {
            throw ControlError(.protocolError, "a reload report lacks one of sequence, accepted, generation, added, changed, removed, kept, errors")
        }
        self.init(
            sequence: sequence, accepted: accepted, generation: generation, added: added, changed: changed, removed: removed,
            kept: kept, errors: errors, finishedRealtimeUSec: finishedRealtimeUSec)
    }
}

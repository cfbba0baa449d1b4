/// One check of a job's exposure, as `systemd-analyze security` shows it in a row: jobd's
/// `SecurityExposure` for `jobctl security`, sent with one job's status.
package struct SecurityCheck: Codable, Sendable, Equatable {
    /// systemd's name of the check: `PrivateNetwork=`, `SystemCallFilter=~@clock`…
    package var id: String
    package var description: String
    package var weight: Int
    package var range: Int
    /// From 0 (safe) to `range` (exposed); `nil`: the check does not apply to the job.
    package var badness: Int?
    /// The check's share of the overall exposure, in tenths; `nil` where it adds nothing.
    package var exposureTenths: Int?

    package init(id: String, description: String, weight: Int, range: Int, badness: Int?, exposureTenths: Int?) {
        self.id = id
        self.description = description
        self.weight = weight
        self.range = range
        self.badness = badness
        self.exposureTenths = exposureTenths
    }
}

extension SecurityCheck: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.optionalInteger("badness", badness)
        writer.string("description", description)
        writer.optionalInteger("exposureTenths", exposureTenths)
        writer.string("id", id)
        writer.integer("range", range)
        writer.integer("weight", weight)
        writer.endObject()
    }

    package init(reading reader: inout JSONReader) throws(ControlError) {
        var id: String?, description: String?, weight: Int?, range: Int?, badness: Int?, exposureTenths: Int?
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "badness": badness = try reader.optionalInteger()
            case "description": description = try reader.string()
            case "exposureTenths": exposureTenths = try reader.optionalInteger()
            case "id": id = try reader.string()
            case "range": range = try reader.integer()
            case "weight": weight = try reader.integer()
            default: try reader.skipValue()
            }
        }
        guard let id, let description, let weight, let range else {
            throw ControlError(.protocolError, "a security check lacks one of id, description, weight, range")
        }
        self.init(id: id, description: description, weight: weight, range: range, badness: badness, exposureTenths: exposureTenths)
    }
}

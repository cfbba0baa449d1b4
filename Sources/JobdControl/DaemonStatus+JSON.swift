/// The daemon's status as JSON, written and read by hand (issue 30): on the wire, and pretty for
/// `jobctl status --json`.
extension DaemonStatus: JSONWritable {
    /// Writes the status as one object, keys sorted, absent optionals left out.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("armedTimers", armedTimers)
        writer.optionalStrings("brokenFiles", brokenFiles)
        writer.integer("generation", generation)
        writer.string("instance", instance)
        writer.integer("jobs", jobs)
        writer.optionalValue("lastReload", lastReload)
        writer.integer("leakedOwners", leakedOwners)
        writer.integer("liveOwners", liveOwners)
        writer.integer("liveTimers", liveTimers)
        writer.integer("pid", pid)
        writer.integer("retiredOwnersAlive", retiredOwnersAlive)
        writer.integer("runningJobs", runningJobs)
        writer.integer("startedRealtimeUSec", startedRealtimeUSec)
        writer.endObject()
    }

    /// Reads one status object, in any key order, unknown keys skipped.
    package init(reading reader: inout JSONReader) throws(ControlError) {
        var pid: Int32?, instance: String?, generation: UInt64?, startedRealtimeUSec: Int64?
        var jobs: Int?, liveOwners: Int?, liveTimers: Int?, armedTimers: Int?, runningJobs: Int?
        var retiredOwnersAlive: Int?, leakedOwners: Int?
        var lastReload: ReloadReport?, brokenFiles: [String]?
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "armedTimers": armedTimers = try reader.integer()
            case "brokenFiles": brokenFiles = try reader.optionalStrings()
            case "generation": generation = try reader.integer()
            case "instance": instance = try reader.string()
            case "jobs": jobs = try reader.integer()
            case "lastReload":
                lastReload = try reader.optional { (reader: inout JSONReader) throws(ControlError) in try ReloadReport(reading: &reader) }
            case "leakedOwners": leakedOwners = try reader.integer()
            case "liveOwners": liveOwners = try reader.integer()
            case "liveTimers": liveTimers = try reader.integer()
            case "pid": pid = try reader.integer()
            case "retiredOwnersAlive": retiredOwnersAlive = try reader.integer()
            case "runningJobs": runningJobs = try reader.integer()
            case "startedRealtimeUSec": startedRealtimeUSec = try reader.integer()
            default: try reader.skipValue()
            }
        }
        guard let pid, let instance, let generation, let startedRealtimeUSec, let jobs, let liveOwners, let liveTimers,
              let armedTimers, let runningJobs, let retiredOwnersAlive, let leakedOwners
        else {
            throw ControlError(.protocolError, "the daemon's status lacks one of its counts, pid, instance or generation")
        }
        self.init(
            pid: pid, instance: instance, generation: generation, startedRealtimeUSec: startedRealtimeUSec, jobs: jobs,
            liveOwners: liveOwners, liveTimers: liveTimers, armedTimers: armedTimers, runningJobs: runningJobs,
            lastReload: lastReload, retiredOwnersAlive: retiredOwnersAlive, leakedOwners: leakedOwners)
        self.brokenFiles = brokenFiles
    }
}

/// A run's report as JSON, written and read by hand (issue 30).
extension RunReport: JSONWritable {
    /// Writes the report as one object, keys sorted, absent optionals left out.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.optionalString("exitCode", exitCode)
        writer.optionalString("exitStatus", exitStatus)
        writer.optionalString("invocationID", invocationID)
        writer.string("job", job)
        writer.optionalString("reason", reason)
        writer.optionalString("result", result)
        writer.optionalInteger("retryAttempt", retryAttempt)
        writer.optionalInteger("retryDelayUSec", retryDelayUSec)
        writer.optionalInteger("retryLimit", retryLimit)
        writer.optionalInteger("retryRunID", retryRunID)
        writer.optionalInteger("runID", runID)
        writer.optionalInteger("shellStatus", shellStatus)
        writer.optionalString("skipReason", skipReason)
        writer.optionalBool("succeeded", succeeded)
        writer.endObject()
    }

    /// Reads one report object, in any key order, unknown keys skipped.
    package init(reading reader: inout JSONReader) throws(ControlError) {
        var job: String?
        var report = RunReport(job: "")
        try reader.members { (reader: inout JSONReader, key: JSONKey) throws(ControlError) in
            switch key {
            case "exitCode": report.exitCode = try reader.optionalString()
            case "exitStatus": report.exitStatus = try reader.optionalString()
            case "invocationID": report.invocationID = try reader.optionalString()
            case "job": job = try reader.string()
            case "reason": report.reason = try reader.optionalString()
            case "result": report.result = try reader.optionalString()
            case "retryAttempt": report.retryAttempt = try reader.optionalInteger()
            case "retryDelayUSec": report.retryDelayUSec = try reader.optionalInteger()
            case "retryLimit": report.retryLimit = try reader.optionalInteger()
            case "retryRunID": report.retryRunID = try reader.optionalInteger()
            case "runID": report.runID = try reader.optionalInteger()
            case "shellStatus": report.shellStatus = try reader.optionalInteger()
            case "skipReason": report.skipReason = try reader.optionalString()
            case "succeeded": report.succeeded = try reader.optionalBool()
            default: try reader.skipValue()
            }
        }
        guard let job else { throw ControlError(.protocolError, "a run report lacks its job") }
        report.job = job
        self = report
    }
}

package import JobdControl

extension WhyReport {
    /// `jobctl why --json`: the rows and the next elapse with their fields as codes (`reason` is
    /// `JOBD_REASON` as jobd logged it), keys sorted, absent values left out; times in wall-clock
    /// microseconds since the epoch. `explanation` is the text line's reason, for people.
    package func write(to writer: inout JSONWriter, time: (Int64) -> String) {
        writer.beginObject()
        writer.key("elapses")
        writer.beginArray()
        for row in rows { Self.write(row, to: &writer, time: time) }
        writer.endArray()
        writer.string("job", job)
        writer.optionalBool("lastDueRan", lastDueRan)
        if let next {
            writer.key("next")
            writer.beginObject()
            writer.strings("conditions", next.conditions)
            writer.strings("deciders", next.deciders)
            writer.bool("disabled", next.disabled)
            writer.optionalString("overlap", next.overlap)
            writer.optionalBool("persistent", next.persistent)
            writer.optionalInteger("retryUSec", next.retryUSec)
            writer.integer("running", next.running)
            writer.optionalInteger("timeUSec", next.timeUSec)
            writer.strings("triggers", next.triggers)
            writer.endObject()
        }
        writer.endObject()
    }

    private static func write(_ row: ElapseExplanation, to writer: inout JSONWriter, time: (Int64) -> String) {
        writer.beginObject()
        writer.string("cause", row.cause)
        writer.bool("caughtUp", row.caughtUp)
        writer.optionalString("condition", row.condition)
        writer.integer("count", row.count)
        writer.optionalString("exitStatus", row.exitStatus)
        writer.string("explanation", because(row, time: time))
        writer.optionalString("node", row.node)
        writer.string("outcome", row.outcome.rawValue)
        writer.optionalString("reason", row.reason)
        writer.optionalString("result", row.result)
        writer.integer("retries", row.retries)
        writer.optionalString("runID", row.runID)
        writer.optionalInteger("startedUSec", row.startedUSec)
        writer.integer("timeUSec", row.timeUSec)
        writer.optionalString("triggeredBy", row.triggeredBy)
        writer.optionalInteger("windowFromUSec", row.windowFromUSec)
        writer.optionalInteger("windowToUSec", row.windowToUSec)
        writer.endObject()
    }
}

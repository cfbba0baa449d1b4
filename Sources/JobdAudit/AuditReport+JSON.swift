package import JobdControl

extension AuditReport: JSONWritable {
    /// The report as JSON: `jobctl audit --json`. Keys are sorted and the layout is fixed, so two
    /// audits of the same journal give the same bytes.
    ///
    /// Schema, version 1 (`schemaVersion`). Times are microseconds since the Unix epoch (`…USec`);
    /// a key whose value is unknown or does not apply is absent, never `null`.
    ///
    /// ```
    /// {
    ///   "schemaVersion": 1,
    ///   "verdict": "clean" | "incomplete" | "pending" | "failed",   // the worst instance's
    ///   "exitCode": 0 | 1,                                          // 1 iff verdict is "failed"
    ///   "leakGraceUSec": 5000000,
    ///   "entries": N, "unattributedEntries": N,                     // read; without JOBD_INSTANCE
    ///   "malformedEntries": N,                                      // jobd entries that could not be read
    ///   "journalEnd": {"realtimeUSec", "monotonicUSec", "bootID"},  // grace periods end here
    ///   "instances": [{
    ///     "instance": "32 hex", "bootID": "32 hex",
    ///     "firstEntryUSec", "lastEntryUSec", "startedUSec"?, "stoppedUSec"?, "exitedUSec"?,
    ///     "ending": "stopped" | "exited" | "cut-off",
    ///     "complete": true | false, "incompleteReasons": ["sentence", …],
    ///     "reloads": N, "failedReloads": N,
    ///     "verdict": "clean" | "incomplete" | "pending" | "failed",
    ///     "owners": OwnerCounts,
    ///     "timers": {"scheduled"?: N, "fired", "invalidated",
    ///                "invalidatedByReason": {"owner-deinit": N, "shutdown": N, …},
    ///                "lateFiresDropped", "otherInvalidated"},
    ///     "generations": [{"generation": N, "loadedUSec"?, "endedUSec"?,
    ///                      "ending"?: "replaced" | "retired" | "exited",
    ///                      "owners": OwnerCounts, "carriedIn": N}],
    ///     "unreleasedOwners": [{"job", "owner", "generation"?, "lastGeneration"?,
    ///                           "state": "running" | "pending" | "leaked" | "unaccounted",
    ///                           "retiredUSec"?}],
    ///     "malformedEntries": N,                                    // any makes the verdict incomplete at best
    ///     "malformedExamples": [{"realtimeUSec", "event", "field", "value"?}],  // the first 5
    ///     "problems": [{"kind": "leak" | "late-release" | "fire-after-deinit" | "timer-not-invalidated",
    ///                   "job"?, "owner"?, "generation"?, "timer"?, "realtimeUSec"?, "detail": "sentence"}]
    ///   }]
    /// }
    /// OwnerCounts: {"created", "released", "carriedOver", "running", "pending", "leaked", "unaccounted",
    ///              "unknownOrigin"}
    /// ```
    package func jsonData() -> [UInt8] {
        var writer = JSONWriter(pretty: true, capacity: 4_096)
        write(to: &writer)
        return writer.bytes
    }

    /// Written by hand through jobd's one JSON writer (issue 30), in the keys' sorted order: the
    /// same bytes as `JSONEncoder` with `.sortedKeys`, `.prettyPrinted` and `.withoutEscapingSlashes`
    /// wrote before, which the tests check against the `Codable` conformance.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("entries", entries)
        writer.integer("exitCode", exitCode)
        writer.integer("foreignEntries", foreignEntries)
        writer.strings("foreignExamples", foreignExamples)
        writer.array("instances", instances)
        writer.optionalValue("journalEnd", journalEnd)
        writer.integer("leakGraceUSec", leakGraceUSec)
        writer.integer("malformedEntries", malformedEntries)
        writer.integer("schemaVersion", schemaVersion)
        writer.integer("unattributedEntries", unattributedEntries)
        writer.string("verdict", verdict.rawValue)
        writer.endObject()
    }
}

extension InstanceReport: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("bootID", bootID)
        writer.bool("complete", complete)
        writer.string("ending", ending.rawValue)
        writer.optionalInteger("exitedUSec", exitedUSec)
        writer.integer("failedReloads", failedReloads)
        writer.integer("firstEntryUSec", firstEntryUSec)
        writer.array("generations", generations)
        writer.strings("incompleteReasons", incompleteReasons)
        writer.string("instance", instance)
        writer.integer("lastEntryUSec", lastEntryUSec)
        writer.integer("malformedEntries", malformedEntries)
        writer.array("malformedExamples", malformedExamples)
        writer.value("owners", owners)
        writer.array("problems", problems)
        writer.integer("reloads", reloads)
        writer.optionalInteger("startedUSec", startedUSec)
        writer.optionalInteger("stoppedUSec", stoppedUSec)
        writer.value("timers", timers)
        writer.array("unreleasedOwners", unreleasedOwners)
        writer.string("verdict", verdict.rawValue)
        writer.endObject()
    }
}

extension GenerationReport: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("carriedIn", carriedIn)
        writer.optionalInteger("endedUSec", endedUSec)
        writer.optionalString("ending", ending?.rawValue)
        writer.integer("generation", generation)
        writer.optionalInteger("loadedUSec", loadedUSec)
        writer.value("owners", owners)
        writer.endObject()
    }
}

extension OwnerCounts: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("carriedOver", carriedOver)
        writer.integer("created", created)
        writer.integer("leaked", leaked)
        writer.integer("pending", pending)
        writer.integer("released", released)
        writer.integer("running", running)
        writer.integer("unaccounted", unaccounted)
        writer.integer("unknownOrigin", unknownOrigin)
        writer.endObject()
    }
}

extension TimerCounts: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("fired", fired)
        writer.integer("invalidated", invalidated)
        writer.key("invalidatedByReason")
        writer.beginObject()
        for (reason, count) in invalidatedByReason.sorted(by: { $0.key < $1.key }) {
            writer.key(reason)
            writer.integer(count)
        }
        writer.endObject()
        writer.integer("lateFiresDropped", lateFiresDropped)
        writer.integer("otherInvalidated", otherInvalidated)
        writer.optionalInteger("scheduled", scheduled)
        writer.endObject()
    }
}

extension UnreleasedOwner: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.optionalInteger("generation", generation)
        writer.string("job", job)
        writer.optionalInteger("lastGeneration", lastGeneration)
        writer.integer("owner", owner)
        writer.optionalInteger("retiredUSec", retiredUSec)
        writer.string("state", state.rawValue)
        writer.endObject()
    }
}

extension MalformedEntry: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("event", event)
        writer.string("field", field)
        writer.integer("realtimeUSec", realtimeUSec)
        writer.optionalString("value", value)
        writer.endObject()
    }
}

extension AuditProblem: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("detail", detail)
        writer.optionalInteger("generation", generation)
        writer.optionalString("job", job)
        writer.string("kind", kind.rawValue)
        writer.optionalInteger("owner", owner)
        writer.optionalInteger("realtimeUSec", realtimeUSec)
        writer.optionalInteger("timer", timer)
        writer.endObject()
    }
}

extension JournalInstant: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("bootID", bootID)
        writer.integer("monotonicUSec", monotonicUSec)
        writer.integer("realtimeUSec", realtimeUSec)
        writer.endObject()
    }
}

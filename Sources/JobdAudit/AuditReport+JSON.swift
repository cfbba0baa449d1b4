package import FoundationEssentials

extension AuditReport {
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
    package func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Every member is a plain value type: encoding cannot fail.
        return try! encoder.encode(self)
    }
}

/// What the journal says about one generation, as the auditor reads it.
struct GenerationLedger {
    let number: UInt64
    var loaded: JournalInstant?
    var ended: JournalInstant?
    var ending: GenerationReport.Ending?
    var carriedIn = 0

    init(number: UInt64) { self.number = number }
}

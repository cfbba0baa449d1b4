/// What the journal says about one owner, as the auditor reads it.
struct OwnerRecord {
    let id: UInt64
    var job: String
    var timer: UInt64?
    /// The generation that created it (`owner.init`); `nil` when its creation is not in the journal.
    var createdGeneration: UInt64?
    /// The latest generation it belonged to.
    var lastGeneration: UInt64?
    var created: JournalInstant?
    var released: JournalInstant?
    /// When a reload that did not keep it, the shutdown, or the exit retired it.
    var retired: JournalInstant?
    var retiredBy: String?
    var carriedOver = false
    /// `owner.leak`: when, and what holds it (`JOBD_REASON`).
    var leakReported: JournalInstant?
    var leakReason: String?
    /// `owner.late-deinit`.
    var lateDeinit: JournalInstant?

    init(id: UInt64, job: String) {
        self.id = id
        self.job = job
    }
}

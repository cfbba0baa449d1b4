import JobdScheduler

/// The fleet claim a run holds (`RunOn=one-node`), as its in-flight record keeps it (issue 36): what
/// the next jobd needs to renew the claim's lease and record the run's end in the fleet's database,
/// the claims table's key (the job is the record's) and the node that claimed it. A record written
/// before, or by an older jobd, has none; an older jobd reading a record with one ignores it.
package struct HeldClaim: Sendable, Hashable {
    /// The `Node=` of `[Fleet]` that claimed it: only that node's renewals reach the claim.
    package var node: String
    /// The calendar elapse the claim is for, in microseconds since the epoch.
    package var elapseUSec: Int64
    /// 0 for the elapse's first run, n for its n-th retry.
    package var attempt: UInt64

    package init(node: String, elapseUSec: Int64, attempt: UInt64) {
        self.node = node
        self.elapseUSec = elapseUSec
        self.attempt = attempt
    }

    var savedLines: [String] {
        [SavedFields.line("claim_node", node), SavedFields.line("claim_elapse", String(elapseUSec)),
         SavedFields.line("claim_attempt", String(attempt))]
    }

    /// The claim of a record's fields; `nil` when they name none (or not all of one).
    init?(_ values: [Substring: Substring]) {
        guard let node = values["claim_node"], !node.isEmpty, let elapse = values["claim_elapse"].flatMap({ Int64($0) }),
              let attempt = values["claim_attempt"].flatMap({ UInt64($0) }) else { return nil }
        self.init(node: String(node), elapseUSec: elapse, attempt: attempt)
    }
}

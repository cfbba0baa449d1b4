/// How an audit (or one jobd instance in it) came out, from best to worst.
///
/// `jobctl audit` exits 1 for ``failed``, 3 for ``suspect`` and 0 otherwise: only a proven defect
/// fails the audit, and forged entries are told apart from it.
package enum AuditVerdict: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// The journal holds the instance from `daemon.start` to `daemon.exit`, every owner created was
    /// released in time, and the order of events is possible.
    case clean
    /// Nothing is wrong in what the journal holds, but it does not hold everything: its head was
    /// rotated away or cut by `--since`, or the instance has no `daemon.exit` (still running,
    /// killed, or cut by `--until`).
    case incomplete
    /// A retired owner is not released yet, but its grace period had not passed by the end of the
    /// journal: run the audit again later.
    case pending
    /// Entries that claim to be jobd's came from another process (their trusted `_UID` or `_PID`
    /// say so): they were left out, and what they claim is neither a leak nor clean.
    case suspect
    /// A leak (a retired owner alive past its grace period or past jobd's exit, or one jobd itself
    /// reported with `owner.leak`), a late release, or an impossible order of events.
    case failed

    private var rank: Int { Self.allCases.firstIndex(of: self)! }

    /// Whether `lhs` is a better outcome than `rhs`.
    package static func < (lhs: AuditVerdict, rhs: AuditVerdict) -> Bool { lhs.rank < rhs.rank }
}

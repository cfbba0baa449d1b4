/// Why an elapse started no run, as a metrics label: `run.skip`'s `JOBD_REASON` where that is one
/// of jobd's own words, `claimed-by` for a fleet elapse another node claimed (the node's name is
/// in the journal: as a label it would make a series per node), and `other` for anything else,
/// so that a label never carries free text (an error message, a connection string).
package struct ElapseSkipReason: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let label: String

    /// The reasons jobd gives a skipped or dropped run of a timer (RunAdmission, the fleet, conditions).
    static let known: Set<String> = [
        "overlap", "already-queued", "disabled", "condition", "job-waiting-runs-max", "user-waiting-runs-max", "stopping",
        "no-such-job", "job-removed", "stopped", "fleet-unavailable", "clock-skew", "no-fleet", "trigger-cycle",
        "trigger-chain-too-long",
    ]

    package init(_ reason: String) {
        label = Self.known.contains(reason) ? reason : reason.hasPrefix("claimed-by") ? "claimed-by" : "other"
    }

    package var description: String { label }

    package static func < (lhs: ElapseSkipReason, rhs: ElapseSkipReason) -> Bool { lhs.label < rhs.label }
}

/// What a starting jobd does with the fleet claims and fences an earlier jobd left (issue 36): the
/// claim of a run it adopts is kept (its fleet thread renews the lease and the fence, and records
/// the run's end), and so is that run's fence file; the claim of a run it does not follow is ended
/// in the database as the run is recorded (abandoned); every other fence file goes, so that a run
/// nobody renews the lease of is stopped by its supervisor, as before issue 36.
package struct ClaimCarryOver: Sendable, Hashable {
    /// Claims this jobd takes over, by run id (`JOBD_RUN_ID`).
    package var kept: [String: HeldClaim] = [:]
    /// Claims of runs recorded abandoned, to be ended in the database, by run id.
    package var released: [String: HeldClaim] = [:]
    /// Claims this node cannot reach (another `Node=`, or no fleet now), by run id: their runs' fences fire.
    package var unreachable: [String: HeldClaim] = [:]
    /// Fence files to remove (their names: run ids).
    package var removedFences: [String] = []

    package init() {}

    /// The decision for the runs an earlier jobd kept as in flight, each with whether this jobd
    /// follows it (adopted, or finished with the keeper's end), given this jobd's fleet `node`
    /// (`nil`: no `[Fleet]`) and the names in the fence directory.
    package static func decide(runs: [(record: RunInFlightRecord, followed: Bool)], node: String?, fences: [String]) -> ClaimCarryOver {
        var decision = ClaimCarryOver()
        for (record, followed) in runs {
            guard let claim = record.claim else { continue }
            if claim.node != node {
                decision.unreachable[record.invocationID] = claim
            } else if followed {
                decision.kept[record.invocationID] = claim
            } else {
                decision.released[record.invocationID] = claim
            }
        }
        decision.removedFences = fences.filter { name in
            // The supervisor's `.stopped` file stays with its run's fence: jobd reads it at the run's end.
            let runID = name.hasSuffix(".stopped") ? String(name.dropLast(".stopped".count)) : name
            return decision.kept[runID] == nil
        }.sorted()
        return decision
    }
}

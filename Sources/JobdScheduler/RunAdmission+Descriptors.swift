extension RunAdmission {
    /// The descriptors jobd holds for each run in flight: its stdout and stderr pipes and its pidfd.
    package static let descriptorsPerRun: UInt64 = 3

    /// How many runs may be in flight at once under jobd's own `RLIMIT_NOFILE` soft limit, as
    /// raised at its start (`nil`: infinity, no bound). jobd keeps a quarter of its limit, at least
    /// 128 and at most 1,024 descriptors, for its own work (about 25 when idle: the journal, control
    /// connections, the state directory, the fleet's database, mail) and shares the rest among
    /// runs, ``descriptorsPerRun`` each. A run beyond the bound waits for a slot, as under
    /// `MaxConcurrentRuns=`, rather than failing to start for want of a pipe, and jobd itself never
    /// runs out (issue 39: under a hard limit of
    /// 20,000, 10,000 runs due at once ran 6,325 at a time instead of failing a third of them).
    package static func runsInFlightCeiling(descriptorLimit: UInt64?) -> Int? {
        guard let limit = descriptorLimit else { return nil }
        let reserve = min(max(limit / 4, 128), 1_024)
        return limit > reserve ? Int(clamping: max((limit - reserve) / descriptorsPerRun, 1)) : 1
    }

    /// How many runs may be in flight at once: `MaxConcurrentRuns=`, or fewer under jobd's
    /// descriptors (``runsInFlightCeiling(descriptorLimit:)``); `nil`: no bound.
    package var slotLimit: Int? {
        switch (maxConcurrentRuns, runsInFlightCeiling) {
        case (let configured?, let ceiling?): min(configured, ceiling)
        case (let configured?, nil): configured
        case (nil, let ceiling): ceiling
        }
    }
}

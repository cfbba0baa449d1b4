package import JobdConfig

/// What a starting jobd does with a run that the state directory says was in flight (issue 36).
package enum Adoption: Sendable, Hashable {
    /// The run ended while no jobd watched it; the keeper kept how. Record that end.
    case finish(RunTermination)
    /// The run's process is still there: follow it (a pidfd) and record its end when it comes.
    case follow(ProcessIdentity)
    /// Nobody knows how it ended: record it as abandoned, as after a crash before issue 36's keeper.
    case abandon

    /// The decision for `record`, given what the keeper wrote of the processes it reaped (`ended`)
    /// and the start time of the live process with the record's pid, if there is one (`liveStartTicks`).
    /// The keeper's record wins over a live process: it is written before the reap, so a process that
    /// is gone has its file, and a file found means the process it names is gone.
    package static func decide(record: RunInFlightRecord, ended: [EndedRun], liveStartTicks: UInt64?) -> Adoption {
        guard let process = record.process else { return .abandon }
        if let end = ended.first(where: { $0.process == process }) { return .finish(end.termination) }
        if liveStartTicks == process.startTicks { return .follow(process) }
        return .abandon
    }
}

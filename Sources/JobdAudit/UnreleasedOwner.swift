/// An owner still alive at the end of the journal, and what that means.
package struct UnreleasedOwner: Sendable, Hashable, Codable {
    /// Why the owner is alive. The raw values are part of the JSON schema.
    package enum State: String, Sendable, Hashable, Codable {
        /// In the running generation of an instance that had not stopped.
        case running
        /// Retired, within its grace period at the end of the journal.
        case pending
        /// Retired and alive past its grace period or jobd's exit, or reported by `owner.leak`.
        case leaked
        /// Retired and not seen released, in an instance whose journal lost entries (journald's rate
        /// limit dropped some): its `owner.deinit` may be one of them. Not a finding; the instance
        /// is incomplete.
        case unaccounted
    }

    /// The job (`JOB`).
    package var job: String
    /// The owner (`JOBD_OWNER`).
    package var owner: UInt64
    /// The generation that created it; `nil` when its `owner.init` is not in the journal.
    package var generation: UInt64?
    /// The latest generation it belonged to (creation or `owner.retain`).
    package var lastGeneration: UInt64?
    /// Why it is alive.
    package var state: State
    /// When it was retired (a reload that did not keep it, stop or exit), if it was.
    package var retiredUSec: UInt64?

    /// Makes a record.
    package init(job: String, owner: UInt64, generation: UInt64?, lastGeneration: UInt64?, state: State, retiredUSec: UInt64?) {
        self.job = job
        self.owner = owner
        self.generation = generation
        self.lastGeneration = lastGeneration
        self.state = state
        self.retiredUSec = retiredUSec
    }
}

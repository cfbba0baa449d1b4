/// One configuration generation of one instance.
package struct GenerationReport: Sendable, Hashable, Codable {
    /// How a generation ended. The raw values are part of the JSON schema.
    package enum Ending: String, Sendable, Hashable, Codable {
        /// A reload loaded the next generation.
        case replaced
        /// Shutdown retired it (`generation.retire`).
        case retired
        /// jobd exited without retiring it (an exit without `generation.retire`).
        case exited
    }

    /// `JOBD_GENERATION`.
    package var generation: UInt64
    /// When `generation.load` was logged; `nil` when it is not in the journal.
    package var loadedUSec: UInt64?
    /// When it ended, if it did.
    package var endedUSec: UInt64?
    /// How it ended; `nil` while running (or when the journal stops first).
    package var ending: Ending?
    /// Owners created by this generation (by their `JOBD_GENERATION`), and what became of them;
    /// ``OwnerCounts/carriedOver`` counts those kept by a later reload.
    package var owners: OwnerCounts
    /// Owners of earlier generations carried into this one (`owner.retain`).
    package var carriedIn: Int

    /// Makes a report.
    package init(
        generation: UInt64, loadedUSec: UInt64?, endedUSec: UInt64?, ending: Ending?, owners: OwnerCounts, carriedIn: Int
    ) {
        self.generation = generation
        self.loadedUSec = loadedUSec
        self.endedUSec = endedUSec
        self.ending = ending
        self.owners = owners
        self.carriedIn = carriedIn
    }
}

package import JobdDefinition

/// Runs that ended since jobd started, by result (``JobHistory/runsByResult``): a count for each
/// ``RunResult``, kept in the history's own bytes.
///
/// Why not a dictionary: a job's first run made its history's dictionary, a small allocation that
/// lives as long as the job. During a burst of runs those allocations landed among the pages the
/// burst's runs then freed, and kept those pages from being given back (issue 39: jobd's RSS after
/// a burst).
package struct RunResultCounts: Sendable, Equatable, Sequence {
    /// One slot a result, in ``RunResult``'s order; room for more results than there are.
    package static let capacity = 12
    private static let results = RunResult.allCases
    private var counts = InlineArray<12, UInt64>(repeating: 0)

    package init() {}

    package subscript(result: RunResult) -> UInt64 {
        get { counts[Self.slot(of: result)] }
        set { counts[Self.slot(of: result)] = newValue }
    }

    /// Whether no run has ended.
    package var isEmpty: Bool { Self.results.indices.allSatisfy { counts[$0] == 0 } }

    /// The results that have a count, in ``RunResult``'s order.
    package func makeIterator() -> IndexingIterator<[(key: RunResult, value: UInt64)]> {
        Self.results.indices.filter { counts[$0] > 0 }.map { (key: Self.results[$0], value: counts[$0]) }.makeIterator()
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        results.indices.allSatisfy { lhs.counts[$0] == rhs.counts[$0] }
    }

    private static func slot(of result: RunResult) -> Int {
        // RunResult has 11 cases: a linear look is as quick as any table.
        guard let slot = results.firstIndex(of: result) else { preconditionFailure("\(result) is one of RunResult.allCases") }
        return slot
    }
}

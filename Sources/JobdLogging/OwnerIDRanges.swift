/// A set of owner ids written compactly as ranges, `1-4999,5001,5003-10000`: the `JOBD_OWNERS=`
/// field of a compact `owner.retain`, which names every owner a reload kept in one entry.
///
/// Owner ids are handed out in sequence, so the owners a reload keeps are mostly runs of
/// consecutive ids: the text grows with what reloads changed, not with the number of jobs.
package struct OwnerIDRanges: Sendable, Hashable, CustomStringConvertible {
    /// Disjoint, ascending, not adjacent (`1-3,5`, never `1-2,3,5`).
    package private(set) var ranges: [ClosedRange<UInt64>]

    /// The ranges of `ids`, in any order, duplicates allowed.
    package init(_ ids: some Sequence<UInt64>) {
        var ranges: [ClosedRange<UInt64>] = []
        for id in ids.sorted() {
            if let last = ranges.last, id <= last.upperBound || id - last.upperBound == 1 {
                ranges[ranges.count - 1] = last.lowerBound...max(last.upperBound, id)
            } else {
                ranges.append(id...id)
            }
        }
        self.ranges = ranges
    }

    /// Parses the field's text; `nil` unless every element is `N` or `N-M` with `N ≤ M`, ascending
    /// and disjoint, and the ids number fewer than `Int.max` (so that ``count`` cannot overflow).
    package init?(_ text: some StringProtocol) {
        var ranges: [ClosedRange<UInt64>] = []
        var total = 0
        for element in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = element.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let lower = UInt64(bounds[0]) else { return nil }
            let upper = bounds.count == 2 ? UInt64(bounds[1]) : lower
            guard let upper, lower <= upper else { return nil }
            if let last = ranges.last, lower <= last.upperBound { return nil }
            guard upper - lower < UInt64(Int.max) else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(Int(upper - lower) + 1)
            guard !overflow else { return nil }
            total = sum
            ranges.append(lower...upper)
        }
        self.ranges = ranges
    }

    /// How many ids the ranges hold.
    package var count: Int { ranges.reduce(0) { $0 + Int($1.count) } }

    package var isEmpty: Bool { ranges.isEmpty }

    /// Every id, ascending.
    package var ids: some Sequence<UInt64> { ranges.lazy.flatMap { $0 } }

    /// The ranges in pieces of at most `maxRanges` each, so that no journal entry grows without
    /// bound however fragmented the ids are.
    package func chunked(maxRanges: Int) -> [OwnerIDRanges] {
        stride(from: 0, to: ranges.count, by: max(1, maxRanges)).map { start in
            var piece = self
            piece.ranges = Array(ranges[start..<min(start + max(1, maxRanges), ranges.count)])
            return piece
        }
    }

    package var description: String {
        ranges.map { $0.lowerBound == $0.upperBound ? String($0.lowerBound) : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ",")
    }
}

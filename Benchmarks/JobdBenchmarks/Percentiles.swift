/// Order statistics of a sample of durations in nanoseconds.
struct Percentiles {
    let count: Int
    private let sorted: [Int64]

    init(_ samples: [Int64]) {
        sorted = samples.sorted()
        count = samples.count
    }

    /// The nearest-rank percentile `p` (0...100); 0 for an empty sample.
    func percentile(_ p: Double) -> Int64 {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    var p50: Int64 { percentile(50) }
    var p99: Int64 { percentile(99) }
    var max: Int64 { sorted.last ?? 0 }
    var median: Int64 { p50 }

    /// "p50 X, p99 Y, max Z".
    var summary: String {
        "p50 \(Format.duration(nanoseconds: Double(p50))), p99 \(Format.duration(nanoseconds: Double(p99))), "
            + "max \(Format.duration(nanoseconds: Double(max)))"
    }
}

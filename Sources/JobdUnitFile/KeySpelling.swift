/// Matching a misspelled key to the key that was probably meant.
package enum KeySpelling {
    /// The candidate nearest to `key`, if it is near enough to be a likely misspelling: a
    /// different case, a prefix, or a few letters' edit away.
    package static func nearest(to key: String, among candidates: [String]) -> String? {
        let lowered = key.lowercased()
        if let exact = candidates.first(where: { $0.lowercased() == lowered }) { return exact }
        if lowered.count >= 4, let longer = candidates.first(where: { $0.lowercased().hasPrefix(lowered) }) {
            return longer
        }
        let scored = candidates.map { ($0, editDistance(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, best.0.count / 4) ? best.0 : nil
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours each cost one.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}

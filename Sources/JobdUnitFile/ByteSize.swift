/// A size in bytes read as systemd 252's `parse_size(…, 1024)` reads one for `MemoryMax=` and the
/// other memory limits: a number with an optional fraction and one of the base-1024 suffixes
/// `K`, `M`, `G`, `T`, `P`, `E` (or `B`, or none, for bytes), and several such parts added up, each
/// with a smaller suffix than the one before (`1G 512M`).
enum ByteSize {
    private static let suffixes: [(String, UInt64)] = [
        ("E", 1 << 60), ("P", 1 << 50), ("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10), ("B", 1), ("", 1),
    ]

    /// The bytes, or `nil` for text that is not a size or a size past 2⁶⁴ − 1.
    static func parse(_ text: String) -> UInt64? {
        var rest = Substring(text)
        var total: UInt64 = 0
        var first = 0
        repeat {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let whole = UInt64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            var fraction = 0.0
            if rest.first == "." {
                rest = rest.dropFirst()
                let decimals = rest.prefix { $0.isASCII && $0.isNumber }
                // `10.M` is valid, as systemd's.
                if !decimals.isEmpty {
                    fraction = Double("0." + decimals) ?? 0
                    rest = rest.dropFirst(decimals.count)
                }
            }
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            guard let index = suffixes.indices.dropFirst(first).first(where: { rest.hasPrefix(suffixes[$0].0) }) else { return nil }
            let factor = suffixes[index].1
            guard whole + (fraction > 0 ? 1 : 0) <= UInt64.max / factor else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(whole * factor + UInt64(fraction * Double(factor)))
            guard !overflow else { return nil }
            total = sum
            rest = rest.dropFirst(suffixes[index].0.count)
            first = index + 1
        } while !rest.isEmpty
        return total
    }
}

extension StringProtocol {
    /// The first range where `target` stands, by characters. The standard library's own
    /// (`firstRange(of:)`, `replacing(_:with:)`, `split(separator:)` with a string) live in
    /// _StringProcessing, which brings the regex engine into every static binary (about 1 MB).
    package func firstRange(ofText target: String) -> Range<Index>? {
        guard !target.isEmpty else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(target) { return index..<self.index(index, offsetBy: target.count) }
            index = self.index(after: index)
        }
        return nil
    }

    /// A copy with every `target` replaced by `replacement`, left to right.
    package func replacingEvery(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(ofText: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

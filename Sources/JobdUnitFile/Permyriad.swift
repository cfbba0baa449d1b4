/// A share written as systemd 252 writes one (`parse_permyriad_unbounded`): `15%` and `12.5%` or
/// `12.05%` (at most two decimals), `125‰` or `12.5‰` (at most one), `1250‱` (whole), in
/// ten-thousandths. Shared by `TasksMax=`, the `Memory…=` limits and `CPUQuota=`.
enum Permyriad {
    /// The share in ten-thousandths (`15%` is 1500), unbounded (`CPUQuota=200%` is 20000); `nil`
    /// when `text` is not a share.
    static func parse(_ text: String) -> UInt64? {
        for (suffix, scale, decimals) in [("‱", UInt64(1), 0), ("‰", UInt64(10), 1), ("%", UInt64(100), 2)] where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count).split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard let whole = number.first, !whole.isEmpty, whole.count <= 9, whole.utf8.allSatisfy({ $0.isASCIIDigit }),
                  let units = UInt64(whole) else { return nil }
            var fraction: UInt64 = 0
            if number.count == 2 {
                let digits = number[1]
                guard !digits.isEmpty, digits.count <= decimals, digits.utf8.allSatisfy({ $0.isASCIIDigit }) else { return nil }
                fraction = UInt64(digits)! * (decimals == 2 && digits.count == 1 ? 10 : 1)
            }
            return units * scale + fraction
        }
        return nil
    }
}

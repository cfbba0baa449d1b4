/// A job's fixed share of a span, the same at every elapse and across restarts, and different from
/// machine to machine: `FixedRandomDelay=` and `RandomizedOffsetSec=`, which systemd derives from
/// the machine ID and the unit's name. (Swift's `Hasher` is seeded anew in every process, so it
/// cannot serve.)
package enum StableSpread {
    /// Microseconds in `0..<span` for `job` on the machine `seed` (its `/etc/machine-id`).
    package static func share(of span: Int64, job: String, seed: String) -> Int64 {
        guard span > 0 else { return 0 }
        let (high, _) = hash(seed + "\u{0}" + job).multipliedFullWidth(by: UInt64(span))
        return Int64(high)
    }

    /// FNV-1a over the bytes, then SplitMix64's finalizer, so that names that differ in one byte
    /// land far apart.
    static func hash(_ text: String) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        value = (value ^ (value >> 30)) &* 0xbf58_476d_1ce4_e5b9
        value = (value ^ (value >> 27)) &* 0x94d0_49bb_1331_11eb
        return value ^ (value >> 31)
    }
}

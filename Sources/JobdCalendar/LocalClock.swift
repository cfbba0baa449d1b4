/// Converts between instants and broken-down local time exactly as systemd's calendar code
/// experiences it on glibc: `localtime_r`/`gmtime_r` one way, `mktime`/`timegm` the other.
///
/// The interesting part is `mktime` on a local time that does not exist (a spring-forward gap) or
/// exists twice (a fall-back overlap). glibc resolves those by probing from a guessed offset, and
/// the guess is the offset its previous call ended with. systemd's results across DST changes
/// follow from that (for example `*:0/20` runs 02:40 CEST then 03:00 CET, skipping the repeated
/// hour), so this clock carries the same guess from call to call and probes the same way.
struct LocalClock {
    /// `nil` means UTC with `timegm` (no probing, no state).
    let zone: ZoneData?
    /// glibc's `localtime_offset`, as seconds east: the offset the last conversion settled on.
    var offsetGuess: Int64

    /// The last looked-up stretch of constant local time type: a search probes the same few
    /// instants over and over.
    private var cachedStart: Int64 = 1
    private var cachedEnd: Int64 = 0
    private var cachedType = 0

    init(zone: ZoneData?, offsetGuess: Int64 = 0) {
        self.zone = zone
        self.offsetGuess = offsetGuess
    }

    @inline(__always)
    private mutating func typeIndex(_ zone: ZoneData, atSeconds seconds: Int64) -> Int {
        if seconds >= cachedStart && seconds < cachedEnd {
            return cachedType
        }
        let interval = zone.typeInterval(atSeconds: seconds)
        (cachedType, cachedStart, cachedEnd) = interval
        return interval.type
    }

    /// `localtime_r` (or `gmtime_r` in UTC).
    mutating func breakDown(seconds: Int64) -> BrokenDownTime {
        guard let zone else {
            var tm = BrokenDownTime(localSeconds: seconds)
            tm.isDaylightSaving = 0
            return tm
        }
        let type = typeIndex(zone, atSeconds: seconds)
        var tm = BrokenDownTime(localSeconds: seconds + zone.typeOffsets[type])
        tm.isDaylightSaving = zone.typeIsDaylightSaving[type] ? 1 : 0
        return tm
    }

    /// `mktime` (or `timegm` in UTC): the instant of `tm`, with `tm` normalized in place.
    /// Returns `nil` (and leaves `tm` alone) where glibc returns -1.
    mutating func normalize(_ tm: inout BrokenDownTime) -> Int64? {
        guard let zone else {
            let local = tm.localSeconds
            tm = breakDown(seconds: local)
            return local
        }
        // glibc probes with the seconds clamped to 0...59 and adds the rest afterwards (for leap
        // seconds). In a repeated hour that can land on the other pass: 01:59:74 EDT becomes
        // 01:00:14 EST.
        var clamped = tm
        clamped.second = min(max(tm.second, 0), 59)
        let local = clamped.localSeconds
        let requested = tm.isDaylightSaving
        let firstGuess = local - offsetGuess
        var t = firstGuess
        var t1 = firstGuess
        var t2 = firstGuess
        var remainingProbes = 6
        var type = typeIndex(zone, atSeconds: t)
        var found = false
        var previousIsDaylight = false
        while true {
            let difference = local - (t + zone.typeOffsets[type])
            if difference == 0 {
                break
            }
            let isDaylight = zone.typeIsDaylightSaving[type]
            // Oscillating between two instants: `local` is in a gap. glibc (2.36's mktime) settles
            // on a probe whose DST flag differs from the one requested; with none requested, on
            // one that reads as daylight saving time unless only the other one does. Where DST is
            // negative (Europe/Dublin: winter GMT is the "daylight" time) that can be the earlier
            // probe, so the time moves backwards.
            let settles = requested < 0 ? (!previousIsDaylight || isDaylight) : (requested != 0) != isDaylight
            if t == t1 && t != t2 && settles {
                found = true
                break
            }
            remainingProbes -= 1
            if remainingProbes == 0 {
                return nil
            }
            t1 = t2
            t2 = t
            t += difference
            previousIsDaylight = isDaylight
            type = typeIndex(zone, atSeconds: t)
        }
        if !found, requested >= 0, (requested != 0) != zone.typeIsDaylightSaving[type] {
            // The right wall time but the wrong DST flag: borrow the offset of the nearest instant
            // with the requested flag, as glibc does.
            guard let adjusted = searchOffset(for: local, near: t, daylight: requested != 0, in: zone) else {
                return nil
            }
            t = adjusted
        }
        offsetGuess = local - t
        t += Int64(tm.second - clamped.second)
        tm = breakDown(seconds: t)
        return t
    }

    private func searchOffset(for local: Int64, near t: Int64, daylight: Bool, in zone: ZoneData) -> Int64? {
        let stride: Int64 = 601_200
        let bound: Int64 = 457_243_200 / 2 + stride
        var delta = stride
        while delta < bound {
            for direction: Int64 in [-1, 1] {
                let probe = t + delta * direction
                let type = zone.typeIndex(atSeconds: probe)
                if zone.typeIsDaylightSaving[type] == daylight {
                    return probe + (local - (probe + zone.typeOffsets[type]))
                }
            }
            delta += stride
        }
        // No instant with the requested flag nearby: assume a one-hour difference.
        return t + (daylight ? -3600 : 3600)
    }
}

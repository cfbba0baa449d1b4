/// The immutable, parsed contents of one zone, shared by every copy of its ``TimeZoneRules``.
///
/// Local time types are kept in parallel arrays so the hot path (an offset lookup during a
/// next-elapse computation) reads plain integers. Types from the POSIX footer are appended after
/// the file's own types.
final class ZoneData: Sendable {
    /// Transition instants (UTC seconds), ascending.
    let transitions: [Int64]
    /// For each transition, the index of the local time type that starts there.
    let transitionTypes: [Int]
    let typeOffsets: [Int64]
    let typeIsDaylightSaving: [Bool]
    let typeAbbreviations: [String]
    /// The type used before the first transition.
    let initialType: Int
    /// The rule for instants at or after the last transition, with its two types' indices.
    let footer: PosixTimeZoneRule?
    let footerStandardType: Int
    let footerDaylightType: Int
    /// glibc's `tzname[0]` and `tzname[1]` for this zone.
    let standardName: String
    let daylightName: String
    let isUniversal: Bool

    init(fixedOffset: Int64, abbreviation: String) {
        transitions = []
        transitionTypes = []
        typeOffsets = [fixedOffset]
        typeIsDaylightSaving = [false]
        typeAbbreviations = [abbreviation]
        initialType = 0
        footer = nil
        footerStandardType = 0
        footerDaylightType = 0
        standardName = abbreviation
        daylightName = abbreviation
        isUniversal = fixedOffset == 0
    }

    convenience init(posixRule: PosixTimeZoneRule) {
        self.init(transitions: [], transitionTypes: [], offsets: [], isDaylightSaving: [], abbreviations: [], footer: posixRule)
    }

    init(
        transitions: [Int64], transitionTypes: [Int], offsets: [Int64], isDaylightSaving: [Bool],
        abbreviations: [String], footer: PosixTimeZoneRule?
    ) {
        var offsets = offsets
        var isDaylightSaving = isDaylightSaving
        var abbreviations = abbreviations
        var footerStandard = 0
        var footerDaylight = 0
        if let footer {
            footerStandard = offsets.count
            offsets.append(footer.standardOffset)
            isDaylightSaving.append(false)
            abbreviations.append(footer.standardName)
            footerDaylight = footerStandard
            if let daylight = footer.daylight {
                footerDaylight = offsets.count
                offsets.append(daylight.offset)
                isDaylightSaving.append(true)
                abbreviations.append(daylight.name)
            }
        }
        if offsets.isEmpty {
            offsets = [0]
            isDaylightSaving = [false]
            abbreviations = ["UTC"]
        }
        self.transitions = transitions
        self.transitionTypes = transitionTypes
        self.typeOffsets = offsets
        self.typeIsDaylightSaving = isDaylightSaving
        self.typeAbbreviations = abbreviations
        self.footer = footer
        self.footerStandardType = footerStandard
        self.footerDaylightType = footerDaylight
        // RFC 8536: before the first transition, local time type 0 applies.
        self.initialType = transitions.isEmpty && footer != nil ? footerStandard : 0

        // glibc names the zone after the latest standard and daylight types it transitions to, and
        // sets `daylight` when their offsets differ; the footer wins when there is one.
        var standardName: String?
        var daylightName: String?
        var standardOffset: Int64?
        var daylightOffset: Int64?
        for index in transitionTypes.indices.reversed() {
            let type = transitionTypes[index]
            if isDaylightSaving[type] {
                if daylightName == nil {
                    daylightName = abbreviations[type]
                    daylightOffset = offsets[type]
                }
            } else if standardName == nil {
                standardName = abbreviations[type]
                standardOffset = offsets[type]
            }
            if standardName != nil && daylightName != nil { break }
        }
        if let footer {
            standardName = footer.standardName
            standardOffset = footer.standardOffset
            daylightName = footer.daylight?.name
            daylightOffset = footer.daylight?.offset
        }
        let firstStandard = standardName ?? abbreviations[initialType]
        self.standardName = firstStandard
        self.daylightName = daylightName ?? firstStandard
        let stdOffset = standardOffset ?? offsets[initialType]
        let dstOffset = daylightOffset ?? stdOffset
        self.isUniversal = stdOffset == 0 && dstOffset == stdOffset
    }

    func isEquivalent(to other: ZoneData) -> Bool {
        transitions == other.transitions && transitionTypes == other.transitionTypes
            && typeOffsets == other.typeOffsets && typeAbbreviations == other.typeAbbreviations
            && footer == other.footer
    }

    /// Index of the local time type in effect at `seconds` (UTC).
    @inline(__always)
    func typeIndex(atSeconds seconds: Int64) -> Int {
        let count = transitions.count
        if count == 0 || seconds < transitions[0] {
            if count == 0, let footer {
                return footer.isDaylightSaving(atSeconds: seconds) ? footerDaylightType : footerStandardType
            }
            return initialType
        }
        if seconds >= transitions[count - 1] {
            if let footer {
                return footer.isDaylightSaving(atSeconds: seconds) ? footerDaylightType : footerStandardType
            }
            return transitionTypes[count - 1]
        }
        // Find the last transition at or before `seconds`.
        var low = 0
        var high = count - 1
        while low + 1 < high {
            let middle = (low + high) >> 1
            if transitions[middle] <= seconds {
                low = middle
            } else {
                high = middle
            }
        }
        return transitionTypes[low]
    }

    /// The local time type at `seconds` and the interval `start..<end` over which the transition
    /// table says it holds, so callers can skip the search for nearby instants. The interval is
    /// empty where the footer rule applies.
    func typeInterval(atSeconds seconds: Int64) -> (type: Int, start: Int64, end: Int64) {
        let count = transitions.count
        if count == 0 || seconds >= transitions[count - 1] {
            let type = count == 0 ? (footer == nil ? 0 : typeIndex(atSeconds: seconds)) : typeIndex(atSeconds: seconds)
            guard let footer else {
                return (type, count == 0 ? Int64.min : transitions[count - 1], Int64.max)
            }
            let (start, end) = footer.interval(atSeconds: seconds)
            return (type, max(start, transitions.last ?? Int64.min), end)
        }
        if seconds < transitions[0] {
            return (initialType, Int64.min, transitions[0])
        }
        var low = 0
        var high = count - 1
        while low + 1 < high {
            let middle = (low + high) >> 1
            if transitions[middle] <= seconds {
                low = middle
            } else {
                high = middle
            }
        }
        return (transitionTypes[low], transitions[low], transitions[low + 1])
    }

    @inline(__always)
    func offset(atSeconds seconds: Int64) -> Int64 {
        if transitions.isEmpty && footer == nil {
            return typeOffsets[0]
        }
        return typeOffsets[typeIndex(atSeconds: seconds)]
    }

    func localTimeType(atSeconds seconds: Int64) -> LocalTimeType {
        let index = typeIndex(atSeconds: seconds)
        return LocalTimeType(
            offset: Int(typeOffsets[index]), isDaylightSaving: typeIsDaylightSaving[index],
            abbreviation: typeAbbreviations[index])
    }

    /// The first transition instant strictly after `seconds`, from the table or the footer rule.
    func nextTransition(afterSeconds seconds: Int64) -> Int64? {
        if let last = transitions.last, seconds < last {
            var low = 0
            var high = transitions.count - 1
            while low < high {
                let middle = (low + high) >> 1
                if transitions[middle] > seconds {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            return transitions[low]
        }
        guard let footer else { return nil }
        return footer.nextTransition(afterSeconds: seconds)
    }
}

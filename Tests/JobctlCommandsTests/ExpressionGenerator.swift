/// Deterministic pseudo-random calendar expressions, valid and invalid, for the differential test.
struct ExpressionGenerator {
    /// SplitMix64: tiny, seedable, and the same on every platform.
    struct Random {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func int(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

        mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + int(range.count) }

        mutating func chance(_ percent: Int) -> Bool { int(100) < percent }

        mutating func pick<T>(_ values: [T]) -> T { values[int(values.count)] }
    }

    var random: Random

    init(seed: UInt64) {
        random = Random(state: seed)
    }

    private static let shorthands = [
        "minutely", "hourly", "daily", "monthly", "weekly", "yearly", "annually", "quarterly", "semiannually",
        "semi-annually", "biannually", "Daily", "HOURLY", "anually", "fortnightly",
    ]
    private static let zoneSuffixes = [
        " UTC", " utc", " Europe/Berlin", " America/New_York", " Asia/Tokyo", " Australia/Lord_Howe",
        " Asia/Kolkata", " Etc/UTC", " CET", " EST", " Nowhere/Zone", " europe/berlin", " GMT",
    ]
    private static let weekdayNames = [
        ["Mon", "Monday", "mon"], ["Tue", "Tuesday", "TUE"], ["Wed", "Wednesday", "wed"],
        ["Thu", "Thursday", "thu"], ["Fri", "Friday", "fri"], ["Sat", "Saturday", "sat"],
        ["Sun", "Sunday", "SUN"],
    ]

    mutating func expression() -> String {
        let roll = random.int(100)
        if roll < 5 {
            return random.pick(Self.shorthands) + (random.chance(30) ? random.pick(Self.zoneSuffixes) : "")
        }
        if roll < 7 {
            return "@" + String(random.int(in: 1_700_000_000...1_900_000_000))
        }
        let text = structured()
        if roll < 15 {
            return mutate(text)
        }
        return text
    }

    private mutating func mutate(_ text: String) -> String {
        var characters = Array(text)
        let junk: [Character] = ["-", ":", ".", ",", "/", "~", "*", " ", "x", "9", "..", "@"].map { Character(String($0.prefix(1))) }
        let index = random.int(characters.count + 1)
        switch random.int(3) {
        case 0: characters.insert(random.pick(junk), at: index)
        case 1 where index < characters.count: characters.remove(at: index)
        default:
            if index < characters.count { characters[index] = random.pick(junk) }
        }
        return String(characters)
    }

    private mutating func structured() -> String {
        var parts: [String] = []
        let hasWeekday = random.chance(30)
        if hasWeekday {
            parts.append(weekdays())
        }
        let dateForm = random.int(10)
        if dateForm >= 3 {
            let tilde = random.chance(10)
            let day = field(1...31, tilde ? 1...7 : 1...31)
            let month = field(1...12, 1...12)
            let separator = tilde ? "~" : "-"
            if dateForm < 5 {
                parts.append(month + separator + day)
            } else {
                parts.append(year() + "-" + month + separator + day)
            }
        }
        let timeForm = random.int(100)
        if timeForm >= 10 || parts.isEmpty {
            var time = field(0...23, 0...23) + ":" + field(0...59, 0...59)
            if timeForm >= 50 {
                time += ":" + seconds()
            }
            parts.append(time)
        }
        var text = parts.joined(separator: random.chance(5) ? "  " : " ")
        if random.chance(20) {
            text += random.pick(Self.zoneSuffixes)
        }
        return text
    }

    private mutating func weekdays() -> String {
        var items: [String] = []
        for _ in 0..<random.int(in: 1...3) {
            let first = random.int(7)
            let name = random.pick(Self.weekdayNames[first])
            if random.chance(40) {
                let last = random.chance(90) ? random.int(in: first...6) : random.int(7)
                items.append(name + random.pick(["..", "-"]) + random.pick(Self.weekdayNames[last]))
            } else {
                items.append(name)
            }
        }
        return items.joined(separator: ",") + (random.chance(5) ? "," : "")
    }

    private mutating func year() -> String {
        switch random.int(10) {
        case 0...3: return "*"
        case 4: return String(random.int(in: 24...32))
        case 5: return random.pick(["1969", "2200", "2199", "1970", "99", "70"])
        case 6: return "\(random.int(in: 2025...2028))..\(random.int(in: 2026...2031))"
        case 7: return "\(random.int(in: 2024...2027))/\(random.int(in: 1...3))"
        default: return String(random.int(in: 2025...2030))
        }
    }

    private mutating func number(_ range: ClosedRange<Int>) -> String {
        // Mostly in range, sometimes just outside it, sometimes with a leading zero.
        let value = random.chance(5) ? random.pick([range.lowerBound - 1, range.upperBound + 1]) : random.int(in: range)
        if value < 0 { return "0" }
        return random.chance(20) && value < 10 ? "0\(value)" : String(value)
    }

    private mutating func element(_ range: ClosedRange<Int>) -> String {
        switch random.int(10) {
        case 0...3: return number(range)
        case 4, 5:
            let a = random.int(in: range)
            let b = random.chance(90) ? random.int(in: a...range.upperBound) : random.int(in: range)
            return "\(a)..\(b)"
        case 6, 7: return number(range) + "/" + String(random.int(in: 1...max(1, range.count / 2)))
        case 8:
            let a = random.int(in: range)
            return "\(a)..\(random.int(in: a...range.upperBound))/\(random.int(in: 1...5))"
        default: return number(range) + "/" + String(random.int(in: 0...range.count))
        }
    }

    private mutating func field(_ range: ClosedRange<Int>, _ common: ClosedRange<Int>) -> String {
        if random.chance(35) {
            return "*"
        }
        let count = random.chance(75) ? 1 : random.int(in: 2...4)
        return (0..<count).map { _ in element(common.count == range.count ? range : common) }.joined(separator: ",")
    }

    private mutating func seconds() -> String {
        switch random.int(10) {
        case 0...2: return "*"
        case 3: return number(0...59) + random.pick([".5", ".25", ".123456", ".0000005", ".9999999"])
        case 4: return "0/" + random.pick(["0.5", "10", "15.25", "30"])
        case 5: return "\(random.int(in: 0...30))..\(random.int(in: 30...59))"
        default: return field(0...59, 0...59)
        }
    }
}

/// One `Limit…=` key of systemd.exec(5): a resource limit, soft and hard, as `setrlimit(2)` takes
/// it. `SOFT:HARD` or one value for both; `infinity`; sizes with the base-1024 suffixes K, M, G, T,
/// P, E; `LimitCPU=` in seconds and `LimitRTTIME=` in microseconds, each also as a time span;
/// `LimitNICE=` as a nice value with a sign (`-5`, `+10`) or the kernel's raw 0 to 40.
package struct ResourceLimit: Sendable, Hashable {
    /// `nil` is `infinity` (`RLIM_INFINITY`).
    package var soft: UInt64?
    package var hard: UInt64?

    package init(soft: UInt64?, hard: UInt64?) {
        self.soft = soft
        self.hard = hard
    }

    package enum Resource: Int32, Sendable, Hashable, CaseIterable {
        // Linux's RLIMIT_* numbers.
        case cpu = 0, fsize = 1, data = 2, stack = 3, core = 4, rss = 5, nproc = 6, nofile = 7, memlock = 8, `as` = 9
        case locks = 10, sigpending = 11, msgqueue = 12, nice = 13, rtprio = 14, rttime = 15

        package var number: Int32 { rawValue }

        /// The job file's key: `LimitNOFILE`.
        package var key: String {
            "Limit" + (self == .as ? "AS" : String(describing: self).uppercased())
        }

        package init?(key: String) {
            guard let found = Self.allCases.first(where: { $0.key == key }) else { return nil }
            self = found
        }

        /// What a value counts.
        var unit: Unit {
            switch self {
            case .fsize, .data, .stack, .core, .rss, .memlock, .as, .msgqueue: .bytes
            case .cpu: .seconds
            case .rttime: .microseconds
            case .nice: .nice
            case .nproc, .nofile, .locks, .sigpending, .rtprio: .count
            }
        }
    }

    enum Unit { case bytes, seconds, microseconds, nice, count }

    package struct Failure: Error, Equatable {
        package var message: String
        package var hint: String
    }

    /// Reads a `Limit…=` value.
    package static func parse(_ text: String, resource: Resource) -> Result<ResourceLimit, Failure> {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return .failure(failure(resource)) }
        var values: [UInt64?] = []
        for part in parts {
            guard let value = one(String(part), resource: resource) else { return .failure(failure(resource)) }
            values.append(value)
        }
        let limit = ResourceLimit(soft: values[0], hard: values.count == 2 ? values[1] : values[0])
        if let hard = limit.hard, limit.soft.map({ $0 > hard }) ?? true {
            return .failure(Failure(message: "has a soft limit above its hard limit", hint: "write SOFT:HARD with SOFT no larger than HARD"))
        }
        return .success(limit)
    }

    private static func failure(_ resource: Resource) -> Failure {
        let example = switch resource.unit {
        case .bytes: "8M, 1G:2G or infinity"
        case .seconds: "60, 5min or infinity"
        case .microseconds: "500ms, 2s or infinity"
        case .nice: "-5, +10 (a nice value) or 0 to 40 (the kernel's)"
        case .count: "1024, 1024:4096 or infinity"
        }
        return Failure(message: "is not a resource limit", hint: "write one value or SOFT:HARD, such as \(example)")
    }

    /// One value: `nil` inside for infinity, `nil` outside for a value that is not one.
    private static func one(_ text: String, resource: Resource) -> UInt64?? {
        if text == "infinity" { return .some(nil) }
        switch resource.unit {
        case .count:
            return UInt64(text).map { .some($0) }
        case .bytes:
            let suffixes: [Character: UInt64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60]
            var digits = Substring(text)
            var scale: UInt64 = 1
            if let last = digits.last, let found = suffixes[last] { scale = found; digits = digits.dropLast() }
            guard let number = UInt64(digits) else { return nil }
            let (bytes, overflow) = number.multipliedReportingOverflow(by: scale)
            return overflow ? nil : .some(bytes)
        case .seconds, .microseconds:
            // A plain number is in the key's own unit; anything else is a time span.
            if let number = UInt64(text) { return .some(number) }
            guard let span = try? TimeSpan.parse(text), !span.isInfinite else { return nil }
            // systemd rounds LimitCPU= up to whole seconds.
            return .some(resource.unit == .seconds ? (span.microseconds + 999_999) / 1_000_000 : span.microseconds)
        case .nice:
            if let first = text.first, first == "-" || first == "+" {
                guard let value = Int(text), (-20...19).contains(value) else { return nil }
                return .some(UInt64(20 - value))
            }
            guard let raw = UInt64(text), raw <= 40 else { return nil }
            return .some(raw)
        }
    }

    /// A limit as `jobd-cgexec --rlimit` takes it: a number or `infinity`.
    package static func text(_ value: UInt64?) -> String { value.map(String.init) ?? "infinity" }
}

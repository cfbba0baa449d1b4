import Testing

@testable import JobdCalendar

/// The TZif reader against offsets and abbreviations known from tzdata.
@Suite struct TimeZoneRulesTests {
    func type(_ zone: String, at time: String) throws -> LocalTimeType {
        try TimeZoneRules.load(named: zone).localTimeType(at: instant(time))
    }

    @Test(arguments: [
        ("Europe/Berlin", "2026-01-15 12:00:00 UTC", 3600, false, "CET"),
        ("Europe/Berlin", "2026-07-15 12:00:00 UTC", 7200, true, "CEST"),
        // Before and after the 2026 change at 01:00 UTC on the last Sunday of March.
        ("Europe/Berlin", "2026-03-29 00:59:59 UTC", 3600, false, "CET"),
        ("Europe/Berlin", "2026-03-29 01:00:00 UTC", 7200, true, "CEST"),
        // Past the last transition in the file: the POSIX footer rule decides.
        ("Europe/Berlin", "2100-07-01 00:00:00 UTC", 7200, true, "CEST"),
        ("Europe/Berlin", "2100-12-01 00:00:00 UTC", 3600, false, "CET"),
        // The first daylight saving time, 1916.
        ("Europe/Berlin", "1916-06-01 00:00:00 UTC", 7200, true, "CEST"),
        ("America/New_York", "2026-01-15 12:00:00 UTC", -18000, false, "EST"),
        ("America/New_York", "2026-07-15 12:00:00 UTC", -14400, true, "EDT"),
        ("Australia/Lord_Howe", "2026-07-15 12:00:00 UTC", 37800, false, "+1030"),
        ("Australia/Lord_Howe", "2026-01-15 12:00:00 UTC", 39600, true, "+11"),
        ("Asia/Kolkata", "2026-07-15 12:00:00 UTC", 19800, false, "IST"),
        ("UTC", "2026-07-15 12:00:00 UTC", 0, false, "UTC"),
    ])
    func knownOffsets(zone: String, time: String, offset: Int, daylight: Bool, abbreviation: String) throws {
        let type = try type(zone, at: time)
        #expect(type.offset == offset)
        #expect(type.isDaylightSaving == daylight)
        #expect(type.abbreviation == abbreviation)
    }

    @Test func transitionsIncludingTheFooterRule() throws {
        let berlin = try TimeZoneRules.load(named: "Europe/Berlin")
        #expect(berlin.nextTransition(after: instant("2026-01-01 00:00:00 UTC")) == instant("2026-03-29 01:00:00 UTC"))
        #expect(berlin.nextTransition(after: instant("2026-03-29 01:00:00 UTC")) == instant("2026-10-25 01:00:00 UTC"))
        #expect(berlin.nextTransition(after: instant("2150-01-01 00:00:00 UTC")) == instant("2150-03-29 01:00:00 UTC"))
        let lordHowe = try TimeZoneRules.load(named: "Australia/Lord_Howe")
        // First Sunday of October, 02:00 local standard time (+10:30).
        #expect(lordHowe.nextTransition(after: instant("2026-06-01 00:00:00 UTC")) == instant("2026-10-03 15:30:00 UTC"))
        #expect(try TimeZoneRules.load(named: "Asia/Kolkata").nextTransition(after: instant("2026-01-01 00:00:00 UTC")) == nil)
    }

    @Test func environmentSelectsTheZone() throws {
        let berlin = try TimeZoneRules.load(named: "Europe/Berlin")
        #expect(TimeZoneRules.current(environment: ["TZ": ":Europe/Berlin"]) == berlin)
        #expect(TimeZoneRules.current(environment: ["TZ": "Europe/Berlin"]) == berlin)
        #expect(TimeZoneRules.current(environment: ["TZ": ""]).isUniversal)
        #expect(TimeZoneRules.current(environment: ["TZ": "Nowhere/Zone"]).identifier == "UTC")
        // A POSIX TZ string works without tzdata.
        let posix = TimeZoneRules.current(environment: ["TZ": "CET-1CEST,M3.5.0,M10.5.0/3"])
        for time in ["2026-03-29 00:59:59 UTC", "2026-03-29 01:00:00 UTC", "2026-10-25 00:59:59 UTC", "2026-10-25 01:00:00 UTC"] {
            #expect(posix.localTimeType(at: instant(time)) == berlin.localTimeType(at: instant(time)), "\(time)")
        }
        // Unset: /etc/localtime.
        let local = TimeZoneRules.current(environment: [:])
        #expect(!local.identifier.isEmpty)
    }

    @Test func unknownZonesAreErrorsThatNameTheZone() {
        #expect {
            try TimeZoneRules.load(named: "Nowhere/Zone")
        } throws: { error in
            (error as? CalendarError)?.code == .unknownTimeZone && "\(error)".contains("Nowhere/Zone")
        }
        #expect(throws: CalendarError.self) { try TimeZoneRules.load(named: "../etc/passwd") }
    }

    @Test func universalZonesPrintNoUTCLine() throws {
        #expect(TimeZoneRules.utc.isUniversal)
        #expect(try TimeZoneRules.load(named: "Etc/UTC").isUniversal)
        #expect(try !TimeZoneRules.load(named: "Europe/London").isUniversal)
        #expect(try !TimeZoneRules.load(named: "Asia/Kolkata").isUniversal)
    }

    @Test func loadedZonesAreShared() throws {
        let first = try TimeZoneRules.load(named: "America/New_York")
        let second = try TimeZoneRules.load(named: "America/New_York")
        #expect(first.data === second.data)
    }
}

/// Wall-clock readings around DST changes.
@Suite struct LocalTimeResolutionTests {
    let berlin = try! TimeZoneRules.load(named: "Europe/Berlin")

    @Test func gapsAndOverlaps() {
        #expect(
            berlin.resolve(LocalDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30))
                == .skipped(transition: instant("2026-03-29 01:00:00 UTC")))
        #expect(
            berlin.resolve(LocalDateTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30))
                == .repeated(first: instant("2026-10-25 00:30:00 UTC"), second: instant("2026-10-25 01:30:00 UTC")))
        #expect(
            berlin.resolve(LocalDateTime(year: 2026, month: 6, day: 1, hour: 12))
                == .unique(instant("2026-06-01 10:00:00 UTC")))
    }

    @Test func instantsAsSystemdComputesThem() {
        #expect(
            format(berlin.instant(for: LocalDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)), in: berlin)
                == "Sun 2026-03-29 03:30:00 CEST")
        #expect(
            format(berlin.instant(for: LocalDateTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30)), in: berlin)
                == "Sun 2026-10-25 02:30:00 CEST")
    }
}

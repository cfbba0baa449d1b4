import Foundation
import JobdCalendar
import JobdConfig
import JobdTimers

/// Part 4: the calendar engine. Next-elapse computations per second over a mix of `OnCalendar=` and
/// `Cron=` expressions in a zone with DST, and issue 3's figure: loading `jobs` calendar jobs
/// (reading and parsing every file, then each job's first next elapse) in a release build.
struct CalendarBenchmark {
    var jobs: Int
    /// Next elapses chained from one base per expression and round.
    var chain = 2_000

    static let calendarExpressions = [
        "daily", "hourly", "Mon..Fri 09:00", "*-*-* 02:30:00", "*-*~01", "Sat,Sun *-*-* 10:00",
        "*:0/15", "quarterly", "*-*-1/3 12:00", "Mon *-*-1..7 03:00", "*-*-* 04:00:00 UTC",
        "Tue,Thu *-*-* 18:45:30", "*-02-29 00:00:00", "minutely",
    ]
    static let cronExpressions = [
        "*/15 9-17 * * mon-fri", "@daily", "0 3 * * *", "30 2 * * 0", "0 0 1 * *", "5 4 * * sun",
        "0 */2 * * *", "0 0 13 * 5", "15 14 1 * *", "0 22 * * 1-5", "@hourly", "*/5 * * * *",
        "0 2 29 2 *", "45 23 * 12 6",
    ]

    func run(_ report: Report) throws {
        report.section("Part 4: calendar engine (zone Europe/Berlin, with DST)", part: "4 calendar")
        let zone = try TimeZoneRules.load(named: "Europe/Berlin")
        let calendars = try Self.calendarExpressions.map { text throws(CalendarError) in try CalendarSpec.parse(text, localZone: zone) }
        let crons = try Self.cronExpressions.map { text throws(CalendarError) in try CronSpec.parse(text) }
        let base = RealtimeInstant(seconds: 1_767_225_600)  // 2026-01-01 00:00:00 UTC
        report.note("\(calendars.count) OnCalendar= and \(crons.count) Cron= expressions, each a chain of \(chain) next elapses from 2026-01-01")

        let (calendarSeconds, calendarSum) = Self.time {
            calendars.reduce(0) { sum, spec in sum &+ chainElapses(from: base) { spec.nextElapse(after: $0, in: zone) } }
        }
        let (cronSeconds, cronSum) = Self.time {
            crons.reduce(0) { sum, spec in sum &+ chainElapses(from: base) { spec.nextElapse(after: $0, in: zone) } }
        }
        let calendarRate = Double(calendars.count * chain) / calendarSeconds
        let cronRate = Double(crons.count * chain) / cronSeconds
        let mixRate = Double((calendars.count + crons.count) * chain) / (calendarSeconds + cronSeconds)
        report.figure("OnCalendar= next elapses", Format.rate(calendarRate))
        report.figure("Cron= next elapses", Format.rate(cronRate))
        report.figure("the mix", Format.rate(mixRate) + " (checksum \(String(UInt64(bitPattern: calendarSum &+ cronSum), radix: 16)))")

        try loadCalendarJobs(report, zone: zone)
    }

    /// Issue 3's figure: `jobs` job files with `OnCalendar=` or `Cron=`, loaded as jobd loads them.
    private func loadCalendarJobs(_ report: Report, zone: TimeZoneRules) throws {
        let directory = NSTemporaryDirectory() + "jobd-bench-calendar-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/jobs.d", withIntermediateDirectories: true)
        var texts: [String] = []
        var expressions: [(calendar: Bool, text: String)] = []
        for index in 0..<jobs {
            let calendar = index % 2 == 0
            let expression = calendar
                ? Self.calendarExpressions[index / 2 % Self.calendarExpressions.count]
                : Self.cronExpressions[index / 2 % Self.cronExpressions.count]
            expressions.append((calendar, expression))
            let trigger = (calendar ? "OnCalendar=" : "Cron=") + expression
            let text = "[Job]\nDescription=calendar job \(index)\n\(trigger)\nExecStart=/bin/echo \(index)\n"
            try text.write(toFile: directory + "/jobs.d/\(JobFileSet.name(index)).job", atomically: false, encoding: .utf8)
            texts.append(text)
        }

        let (parseSeconds, parsed) = Self.time {
            texts.enumerated().reduce(0) { count, item in
                let read = JobFileReader.read(name: JobFileSet.name(item.offset), path: "/memory", text: item.element)
                return count + ((try? read.get()) == nil ? 0 : 1)
            }
        }
        let heapBefore = ProcessProbe.heapInUse
        let (loadSeconds, loaded) = Self.time { JobDirectory(path: directory).load() }
        let definitions = try loaded.get()
        // Issue 19: what the definitions hold, counted while they are alive (texts and parse trees freed).
        let heapPerJob = Double(ProcessProbe.heapInUse - heapBefore) / Double(max(1, definitions.count))
        let now = RealtimeInstant(seconds: Int64(Date().timeIntervalSince1970))
        let (elapseSeconds, elapses) = Self.time {
            definitions.reduce(0) { count, definition in
                count + definition.triggers.reduce(0) { count, trigger in
                    switch trigger {
                    case .calendar(let spec): count + (spec.nextElapse(after: now, in: zone) == nil ? 0 : 1)
                    case .cron(let spec): count + (spec.nextElapse(after: now, in: zone) == nil ? 0 : 1)
                    default: count
                    }
                }
            }
        }
        // The calendar engine's own share of loading: each job's expression parsed, as the job-file
        // reader parses it, plus the first next elapses above; the rest is reading unit files.
        let (expressionSeconds, expressionsParsed) = Self.time {
            expressions.reduce(0) { count, expression in
                let parsed = expression.calendar
                    ? (try? CalendarSpec.parse(expression.text)) != nil : (try? CronSpec.parse(expression.text)) != nil
                return count + (parsed ? 1 : 0)
            }
        }
        let total = loadSeconds + elapseSeconds
        report.figure("JobFileReader.read of \(jobs) texts (no I/O)", Format.duration(nanoseconds: parseSeconds * 1e9) + " (\(parsed) parsed)")
        report.figure("JobDirectory.load() of \(jobs) files", Format.duration(nanoseconds: loadSeconds * 1e9) + " (\(definitions.count) jobs)")
        report.figure("heap in use per loaded definition", Format.bytes(heapPerJob) + " (mallinfo2; paths of \((directory + "/jobs.d/" + JobFileSet.name(0) + ".job").utf8.count) bytes)")
        report.figure("first next elapse of each", Format.duration(nanoseconds: elapseSeconds * 1e9) + " (\(elapses) elapses)")
        report.figure("calendar engine's share (parse + 1st elapse)",
                      Format.duration(nanoseconds: (expressionSeconds + elapseSeconds) * 1e9) + " (\(expressionsParsed) parsed)")
        report.target("loading \(jobs) calendar jobs well under 1 s", measured: Format.duration(nanoseconds: total * 1e9),
                      passed: total < 1)

        // Issue 20: continuation lines are joined in place, not copied once per line.
        let continued = "[Job]\nDescription=start \\\n" + String(repeating: "word \\\n", count: 250_000)
            + "end\nOnStartupSec=1h\nExecStart=/bin/true\n"
        let (joinSeconds, joined) = Self.time { JobFileReader.read(name: "continued", path: "/memory", text: continued) }
        let words = (try? joined.get())?.description?.split(separator: " ").count ?? 0
        report.figure("a job file of 250,000 continuation lines", Format.duration(nanoseconds: joinSeconds * 1e9) + " (\(words) words)")
    }

    /// Computes `chain` successive next elapses of `next`, starting again from `base` when an
    /// expression runs out (or passes 2100); returns a checksum of them, so none is optimized away.
    private func chainElapses(from base: RealtimeInstant, _ next: (RealtimeInstant) -> RealtimeInstant?) -> Int64 {
        var instant = base, sum: Int64 = 0
        for _ in 0..<chain {
            if let following = next(instant), following.seconds < 4_102_444_800 {
                instant = following
            } else {
                instant = base
            }
            sum &+= instant.microseconds
        }
        return sum
    }

    /// Runs `body` once; returns its wall time in seconds and its result.
    private static func time<Result>(_ body: () throws -> Result) rethrows -> (Double, Result) {
        let start = MonotonicInstant.now()
        let result = try body()
        return (Double(MonotonicInstant.now().duration(since: start).nanosecondsSaturated) / 1e9, result)
    }
}

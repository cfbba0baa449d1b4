import JobdCalendar
import JobdUnitFile

/// The readers of the keys that say when a job runs: its triggers and their timer options.
extension JobFileDraft {
    static let spanHint = "write a time span such as 90s, 5min 30s, 1h or 250ms"

    /// `OnStartupSec=`, `OnUnitActiveSec=`, `OnUnitInactiveSec=`: a list; an empty value clears it.
    mutating func readSpanTrigger(_ key: JobKey, _ value: String, line: Int) {
        if value.isEmpty {
            triggers.removeAll { $0.trigger.key == key }
            return
        }
        do {
            let span = try TimeSpan.parse(value)
            let least = key == .onUnitActiveSec ? JobDefinition.minimumUnitActive
                : key == .onUnitInactiveSec ? JobDefinition.minimumUnitInactive : .zero
            guard span >= least else {
                error(line, "\(key.rawValue)=\(value) is shorter than \(least), the least jobd accepts: it would start runs continuously",
                      hint: "write \(key.rawValue)=\(least) or more; for a command that must run continuously, loop inside it")
                return
            }
            let trigger: Trigger = switch key {
            case .onStartupSec: .startup(span)
            case .onUnitActiveSec: .unitActive(span)
            default: .unitInactive(span)
            }
            triggers.append((trigger, line, nil))
        } catch {
            self.error(line, "\(key.rawValue)=: \(error)", hint: Self.spanHint)
        }
    }

    /// `OnCalendar=`, `Cron=`: a list; an empty value clears it.
    mutating func readCalendarTrigger(_ key: JobKey, _ value: String, line: Int) {
        if value.isEmpty {
            triggers.removeAll { $0.trigger.key == key }
            return
        }
        do {
            let make = { () throws(CalendarError) -> Trigger in
                key == .onCalendar ? .calendar(try CalendarSpec.parse(value)) : .cron(try CronSpec.parse(value))
            }
            let list = try interner?.list(key, value, make: make) ?? [make()]
            triggers.append((list[0], line, list))
        } catch {
            self.error(
                line, "\(key.rawValue)=: \(error)",
                hint: key == .cron && ForeignSyntax.looksLikeCronLine(Substring(value)) ? "Cron= takes the schedule only; " + ForeignSyntax.cronHint
                    : key == .onCalendar
                    ? "write a calendar event as systemd.time(7) does, such as daily, Mon..Fri 09:00 or *-*-* 02:30:00; check it with jobctl calendar"
                    : "write five fields (minute hour day-of-month month day-of-week) or @daily, @hourly, @reboot…; check it with jobctl calendar --cron")
        }
    }

    mutating func readCatchUp(_ value: String, line: Int) {
        guard !value.isEmpty else {
            timing.catchUp = nil
            return
        }
        guard let policy = CatchUpPolicy(rawValue: value) else {
            error(line, "CatchUp=: '\(value)' is not a catch-up policy", hint: "write none, latest or all")
            return
        }
        timing.catchUp = policy
        catchUpLine = line
    }

    /// The keys of one time span; an empty value is the key's default.
    mutating func readSpan(_ key: JobKey, _ value: String, line: Int) {
        do {
            let span = try value.isEmpty ? Self.defaultSpan(of: key) : TimeSpan.parse(value)
            switch key {
            case .accuracySec: accuracy = span
            case .randomizedDelaySec: randomizedDelay = span
            case .randomizedOffsetSec: timing.randomizedOffset = span
            case .catchUpWindowSec: timing.catchUpWindow = value.isEmpty ? TimerOptions.defaultCatchUpWindow : span
            case .runtimeMaxSec: runtimeMax = span == .zero ? .infinity : span  // 0 means no limit, as systemd
            // A oneshot service's start is its whole run: systemd stops it after this.
            case .timeoutStartSec: startTimeout = span == .zero ? .infinity : span
            case .restartSec: restart.delay = value.isEmpty ? RestartPolicy().delay : span
            case .restartMaxDelaySec: restart.maxDelay = value.isEmpty ? .infinity : span
            default: stopTimeout = span == .zero ? .infinity : span
            }
        } catch {
            self.error(line, "\(key.rawValue)=: \(error)",
                       hint: key == .restartSec || key == .restartMaxDelaySec ? "write a time span such as 30s, 5min or 1h" : Self.spanHint)
        }
    }

    mutating func readExpectSuccessWithin(_ value: String, line: Int) {
        do {
            // Empty, 0 or infinity: no expectation, as RuntimeMaxSec='s 0 is no limit.
            let span = try value.isEmpty ? TimeSpan.zero : TimeSpan.parse(value)
            expectSuccessWithin = span == .zero || span.isInfinite ? nil : span
        } catch {
            self.error(line, "\(JobKey.expectSuccessWithinSec.rawValue)=: \(error)",
                       hint: "write a time span such as 25h, 1d 2h or 90min: how long the job may go without a successful run")
        }
    }

    /// The boolean keys; an empty value is `no`.
    mutating func readFlag(_ key: JobKey, _ value: String, line: Int) {
        guard let flag = value.isEmpty ? false : JobFileReader.boolean(value) else {
            error(line, "\(key.rawValue)=: '\(value)' is not a boolean", hint: "write yes or no")
            return
        }
        switch key {
        case .fixedRandomDelay: timing.fixedRandomDelay = flag
        case .deferReactivation: timing.deferReactivation = flag
        case .onClockChange: timing.onClockChange = flag
        case .onTimezoneChange: timing.onTimezoneChange = flag
        default: persistent = flag
        }
    }

    private static func defaultSpan(of key: JobKey) -> TimeSpan {
        switch key {
        case .accuracySec: TimeSpan(microseconds: 1_000)
        case .runtimeMaxSec, .timeoutStartSec: .infinity
        case .timeoutStopSec: JobDefinition.defaultStopTimeout
        default: .zero
        }
    }
}

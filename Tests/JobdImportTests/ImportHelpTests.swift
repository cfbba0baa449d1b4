import Foundation
import JobdConfig
import JobdImport
import JobdTestKit
import Testing

/// `jobctl import timer --help` says which keys are carried over and which are left out silently:
/// a timer and service with each of them must be converted so.
struct ImportHelpTests {
    /// A valid value for each key the help may name.
    static let values = [
        "OnCalendar": "daily", "OnBootSec": "5min", "OnStartupSec": "5min", "OnUnitActiveSec": "1h",
        "OnUnitInactiveSec": "1h", "Persistent": "true", "RandomizedDelaySec": "30", "AccuracySec": "1s",
        "User": "root", "Group": "root", "WorkingDirectory": "/tmp", "Environment": "A=1",
        "EnvironmentFile": "-/etc/jobd/none.env", "RuntimeMaxSec": "1h", "TimeoutStopSec": "20s", "TasksMax": "64", "SuccessExitStatus": "3", "RestartPreventExitStatus": "3 SIGTERM", "SupplementaryGroups": "adm", "TimeoutStartSec": "2h", "Nice": "19", "IOSchedulingClass": "idle", "IOSchedulingPriority": "7", "UMask": "0027", "CPUSchedulingPolicy": "batch", "CPUSchedulingPriority": "1",
        "MemoryMax": "1G", "MemoryHigh": "512M", "MemorySwapMax": "0", "CPUWeight": "50", "CPUQuota": "20%", "IOWeight": "50",
        "KillMode": "process", "ProtectSystem": "full", "PrivateTmp": "true", "SystemCallFilter": "@system-service",
        "Description": "help", "Documentation": "man:help(1)", "Unit": "help.service", "Type": "oneshot",
        "SyslogIdentifier": "help", "WantedBy": "timers.target",
        "FixedRandomDelay": "true", "RandomizedOffsetSec": "15min", "DeferReactivation": "true", "OnClockChange": "true",
        "OnTimezoneChange": "true",
    ]
    static let sections = [
        "OnCalendar": "Timer", "OnBootSec": "Timer", "OnStartupSec": "Timer", "OnUnitActiveSec": "Timer",
        "OnUnitInactiveSec": "Timer", "Persistent": "Timer", "RandomizedDelaySec": "Timer", "AccuracySec": "Timer",
        "Unit": "Timer", "Description": "Unit", "Documentation": "Unit", "WantedBy": "Install",
        "FixedRandomDelay": "Timer", "RandomizedOffsetSec": "Timer", "DeferReactivation": "Timer", "OnClockChange": "Timer",
        "OnTimezoneChange": "Timer",
    ]

    /// The `Key=` names in `text`, each once, in order.
    static func keys(in text: Substring) -> [String] {
        var keys: [String] = []
        for token in text.split(whereSeparator: { !$0.isLetter && $0 != "=" }) where token.contains("=") {
            let key = String(token.prefix { $0 != "=" })
            if key.first?.isUppercase == true, !key.hasPrefix("ExecStart"), !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    @Test func theHelpOfImportTimerIsTrue() throws {
        let help = try DaemonProcess(product: "jobctl", arguments: ["import", "timer", "--help"])
        #expect(try help.waitForExit() == 0)
        let text = help.lines.joined(separator: " ")
        let carried = try #require(text.range(of: "Carried over from the timer:"))
        let other = try #require(text.range(of: "Every other key"))
        let silent = try #require(text.range(of: "Left out silently"))
        let carriedKeys = Self.keys(in: text[carried.upperBound..<other.lowerBound])
        let silentKeys = Self.keys(in: text[silent.upperBound...])
        #expect(carriedKeys.count == 42 && silentKeys.count == 5, "\(carriedKeys) \(silentKeys)")

        for key in carriedKeys + silentKeys {
            let value = try #require(Self.values[key], "no value for \(key)=")
            let section = Self.sections[key] ?? "Service"
            let assignment = "[\(section)]\n\(key)=\(value)\n"
            let timer = (section == "Service" ? "" : assignment) + "[Timer]\nOnCalendar=hourly\n"
            let service = (section == "Service" ? assignment : "") + "[Service]\nExecStart=/bin/true\n"
            let result = TimerImporter.convert(
                timer: UnitFile.parse(timer, path: "help.timer").0, service: UnitFile.parse(service, path: "help.service").0, name: "help")
            #expect(!result.hasLosses, "\(key)=: \(result.timerReport.entries) \(result.serviceReport.entries)")
            let job = try #require(result.job)
            if carriedKeys.contains(key) {
                let written = key == "OnBootSec" ? "OnStartupSec" : key
                #expect(job.assignments.contains { $0.key == written && $0.value == value }, "\(key)=\n\(job.text)")
            }
            guard case .success = JobFileReader.read(name: "help", path: "help.job", text: job.text) else {
                Issue.record("\(key)=: the job file does not pass the check\n\(job.text)")
                continue
            }
        }
    }
}

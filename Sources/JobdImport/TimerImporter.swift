import JobdCalendar
package import JobdConfig

/// Converts a systemd `.timer` and the `.service` it starts into one job file, and lists every key
/// it could not carry over. Pure: the caller reads both files (with jobd's ``UnitFile`` reader).
///
/// Carried over: the keys the key table says a timer or a service has (``JobFileKey/importedFrom``:
/// the timer's triggers and their options, the service's account, environment, limits and
/// sandbox), `OnBootSec=` (as `OnStartupSec=`), `AccuracySec=` (systemd's default of 1min when the
/// timer sets none); the service's command lines (see ``ServiceCommand``), `KillMode=`,
/// `SyslogIdentifier=`; the conditions; `Description=`.
package enum TimerImporter {
    package struct Result: Sendable {
        /// `nil` when the service gives no command jobd can run.
        package var job: JobFile?
        /// Entries for the timer's lines; ``serviceReport`` for the service's.
        package var timerReport = ImportReport()
        package var serviceReport = ImportReport()

        package var hasLosses: Bool { timerReport.hasLosses || serviceReport.hasLosses || job == nil }
    }

    /// Keys whose absence changes nothing under jobd: documentation, and what jobd does anyway
    /// (a job file in jobs.d is active; a run is a process jobd waits for).
    static let withoutEffect: Set<String> = [
        "Unit.Description", "Unit.Documentation", "Timer.Unit", "Install.WantedBy",
    ]
    /// The keys carried over as they are: those the key table says a systemd timer or service has.
    static let timerKeys = Set(JobFileKey.all.filter { $0.importedFrom == .timer }.map(\.name))
    static let serviceKeys = Set(JobFileKey.all.filter { $0.importedFrom == .service }.map(\.name))
    /// Service keys systemd reads without specifiers: `%` is a percentage there (`TasksMax=15%`,
    /// `CPUQuota=20%`), carried over as it is.
    static let literalKeys: Set<String> = Set(["TasksMax"] + ResourceControl.Key.allCases.map(\.rawValue))

    /// `name` is the job's name (the timer's name without `.timer`).
    package static func convert(timer: UnitFile, service: UnitFile, name: String) -> Result {
        var result = Result()
        var job = JobFile(name: name)
        job.comment("Imported by jobctl import timer from \(timer.path) and \(service.path).")
        if let description = lastValue("Description", in: timer) ?? lastValue("Description", in: service) {
            job.set("Description", description)
        }
        var hasTrigger = false
        var hasAccuracy = false
        for assignment in timer.assignments {
            let line = assignment.line
            if assignment.section == "Timer", timerKeys.contains(assignment.key) {
                job.set(assignment.key, assignment.value)
                let change = assignment.key.hasSuffix("Change")  // OnClockChange=, OnTimezoneChange=: booleans
                hasTrigger = hasTrigger || (assignment.key.hasPrefix("On") && !assignment.value.isEmpty
                    && (!change || JobFileReader.boolean(assignment.value) == true))
                hasAccuracy = hasAccuracy || assignment.key == "AccuracySec"
            } else if assignment.section == "Timer", assignment.key == "OnBootSec" {
                job.set("OnStartupSec", assignment.value)
                hasTrigger = hasTrigger || !assignment.value.isEmpty
                job.comment("OnBootSec=\(assignment.value) became OnStartupSec=: systemd counts it from the boot, jobd from")
                job.comment("its own start (seconds after the boot, and again whenever jobd is restarted).")
                result.timerReport.add(.note, line: line, "OnBootSec=\(assignment.value) became OnStartupSec=, counted from jobd's start, not the boot")
            } else if assignment.section == "Unit", UnitCondition.kind(ofKey: assignment.key) != nil {
                // The timer's conditions keep it from starting at all; as the job's, each run is
                // skipped under them: the same runs happen.
                job.set(assignment.key, assignment.value)
            } else if !withoutEffect.contains("\(assignment.section).\(assignment.key)") {
                result.timerReport.add(.notCarriedOver, line: line, "[\(assignment.section)] \(assignment.key)=\(assignment.value)")
            }
        }
        if !hasAccuracy {
            job.comment("AccuracySec=1min is systemd's default for timers; jobd's own default is 1ms.")
            job.set("AccuracySec", "1min")
        }
        if !hasTrigger {
            result.timerReport.add(.notCarriedOver, line: nil,
                                   "no trigger jobd takes: OnCalendar=, OnBootSec=, OnStartupSec=, OnUnitActiveSec= or OnUnitInactiveSec=")
        }

        var commandLines: [ServiceCommand.Line] = []
        for assignment in service.assignments {
            let line = assignment.line
            switch (assignment.section, assignment.key) {
            case ("Service", "ExecStartPre"), ("Service", "ExecStart"), ("Service", "ExecStartPost"):
                if assignment.value.isEmpty {
                    commandLines.removeAll { $0.key == assignment.key }
                } else {
                    commandLines.append(ServiceCommand.Line(key: assignment.key, value: assignment.value, line: line))
                }
            case ("Service", "WorkingDirectory") where !assignment.value.drop(while: { $0 == "-" }).hasPrefix("/"):
                result.serviceReport.add(.notCarriedOver, line: line,
                                         "WorkingDirectory=\(assignment.value): jobd takes an absolute path only")
            case ("Service", "Type") where ["oneshot", "simple", "exec", ""].contains(assignment.value):
                continue
            case ("Unit", let key) where UnitCondition.kind(ofKey: key) != nil:
                job.set(key, assignment.value)
            // systemd's two modes that jobd has; `mixed` and `none` are reported below.
            case ("Service", "KillMode") where ["control-group", "process"].contains(assignment.value):
                job.set("KillMode", assignment.value)
            case ("Service", "SyslogIdentifier"):
                if assignment.value.isEmpty || SyslogIdentifier.isValid(assignment.value) {
                    job.set("SyslogIdentifier", assignment.value)
                } else {
                    result.serviceReport.add(.notCarriedOver, line: line,
                                             "SyslogIdentifier=\(assignment.value): \(SyslogIdentifier.hint(for: assignment.value))")
                }
            case ("Service", let key) where literalKeys.contains(key):
                job.set(key, assignment.value)
            case ("Service", "PrivateUsers") where !["", "no", "false", "0", "off", "n", "f"].contains(assignment.value.lowercased()):
                result.serviceReport.add(.notCarriedOver, line: line,
                                         "PrivateUsers=\(assignment.value): jobd does not run a job in a user namespace of its own")
            case ("Service", let key) where serviceKeys.contains(key):
                // systemd reads %% as a percent sign in these keys; jobd reads no specifiers there.
                job.set(key, assignment.value.replacingEvery("%%", with: "%"))
                if assignment.value.replacingEvery("%%", with: "").contains("%") {
                    result.serviceReport.add(.notCarriedOver, line: line,
                                             "\(key)=\(assignment.value): jobd does not expand systemd's specifiers (%n, %h...)")
                }
            default:
                if withoutEffect.contains("\(assignment.section).\(assignment.key)") { continue }
                result.serviceReport.add(.notCarriedOver, line: line, "[\(assignment.section)] \(assignment.key)=\(assignment.value)")
            }
        }
        // systemd's runs of the same service never overlap; jobd's default Overlap=skip matches.
        guard let command = ServiceCommand.execStart(commandLines, report: &result.serviceReport) else { return result }
        job.set("ExecStart", command)
        result.job = job
        return result
    }

    private static func lastValue(_ key: String, in file: UnitFile) -> String? {
        file.assignments.last { $0.section == "Unit" && $0.key == key }?.value
    }
}

import Foundation

/// Generated job files: `count` jobs in one directory, in a realistic mix of triggers, none of
/// which falls due for hours, so that an idle jobd has nothing to do but wait.
struct JobFileSet {
    var count: Int
    /// Every job `OnCalendar=` or `Cron=` (half each), as issue 19's start-up figure has them.
    var calendarOnly = false
    /// Calendar and cron triggers are set twelve hours from now (UTC), so none is due soon.
    var quietHour = (Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour! + 12) % 24

    /// The job file for job `index`; `revision` changes the command of every tenth job, so that
    /// two revisions differ in 10% of the jobs.
    func text(index: Int, revision: Int = 0) -> String {
        let minute = index % 60
        let trigger = switch calendarOnly ? 4 + 3 * (index % 2) : index % 10 {
        case 0..<4: "OnStartupSec=1h\nOnUnitActiveSec=6h"
        case 4..<7: "OnCalendar=*-*-* \(quietHour):\(minute < 10 ? "0" : "")\(minute):00"
        default: "Cron=\(minute) \(quietHour) * * *"
        }
        let version = index % 10 == 0 ? revision : 0
        return """
            [Job]
            Description=Generated job \(index)
            \(trigger)
            Environment=JOB_INDEX=\(index) "LABEL=benchmark job"
            ExecStart=/bin/echo job \(index) revision \(version)

            """
    }

    /// Writes `DIRECTORY/NAME.job` for every job (named `job-00042`), at `revision`.
    func write(into directory: String, revision: Int = 0, onlyChanged: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for index in 0..<count where !onlyChanged || index % 10 == 0 {
            try text(index: index, revision: revision)
                .write(toFile: directory + "/" + Self.name(index) + ".job", atomically: false, encoding: .utf8)
        }
    }

    static func name(_ index: Int) -> String {
        "job-" + String(repeating: "0", count: max(0, 5 - String(index).count)) + String(index)
    }
}

import ArgumentParser
import Glibc
import JobdConfig
import JobdImport

extension Jobctl.Import {
    /// `jobctl import timer`: one job file for a timer and its service.
    struct Timer: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "timer",
            abstract: "Convert a systemd timer and its service into a job file.",
            discussion: """
                UNIT.service defaults to the timer's Unit=, or the .service of the same name, beside \
                the timer. The job is named after the timer.

                Carried over from the timer: OnCalendar=, OnBootSec= (as OnStartupSec=, which jobd \
                counts from its own start, not the boot), OnStartupSec=, OnUnitActiveSec=, \
                OnUnitInactiveSec=, Persistent=, RandomizedDelaySec=, FixedRandomDelay=, RandomizedOffsetSec=, \
                DeferReactivation=, OnClockChange=, OnTimezoneChange=, AccuracySec= (systemd's \
                default of 1min when the timer sets none). From the service: User=, Group=, \
                WorkingDirectory=, Environment=, EnvironmentFile=, RuntimeMaxSec=, TimeoutStopSec=, TasksMax=, SuccessExitStatus=, RestartPreventExitStatus=, TimeoutStartSec=, SupplementaryGroups=, SyslogIdentifier=, \
                Nice=, IOSchedulingClass=, IOSchedulingPriority=, CPUSchedulingPolicy=, \
                CPUSchedulingPriority=, UMask=, the Limit...= keys, MemoryMax=, MemoryHigh=, \
                MemorySwapMax=, CPUWeight=, CPUQuota=, IOWeight=, KillMode= (control-group or process), \
                the sandboxing keys (ProtectSystem=, PrivateTmp=, SystemCallFilter=... as jobd.job(5) lists \
                them, but for a user namespace of the run's own), the timer's and the service's \
                Condition...= and Assert...= of the kinds jobd checks (jobd.job(5), CONDITIONS), \
                and the command: one ExecStart= as it is; several command lines (ExecStartPre=, \
                ExecStart=, ExecStartPost=) joined into one /bin/sh -c that runs them in order and \
                stops at the first failure, unless its line has the - prefix, as systemd runs them.

                Every other key is reported as not carried over (other conditions, RequiresMountsFor=, \
                the + prefix...), and the exit status is then 1. Left out silently, as they change \
                nothing under jobd: Description= (it becomes the job's), Documentation=, Unit=, \
                Type=oneshot (or simple, exec), WantedBy=.
                """)

        @Argument(help: ArgumentHelp("The .timer file.", valueName: "UNIT.timer"))
        var timer: String

        @Argument(help: ArgumentHelp("The .service file it starts.", valueName: "UNIT.service"))
        var service: String?

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the job file into DIR instead of printing it.", valueName: "DIR"))
        var output: String?

        @Flag(help: "Overwrite a job file that exists in DIR.")
        var force = false

        @Flag(help: "Once jobd has the job (after a reload), retire the timer: systemctl disable --now UNIT.timer. Needs --output (jobd's jobs.d).")
        var retire = false

        @OptionGroup var runtime: RuntimeOptions

        func validate() throws {
            if retire, output == nil { throw ValidationError("--retire needs --output DIR, jobd's jobs.d: the job must be in place before the timer goes") }
        }

        func run() throws {
            var standardError = StandardError()
            let directory = timer.contains("/") ? String(timer[..<timer.lastIndex(of: "/")!]) + "/" : ""
            let unitName = timer.split(separator: "/").last.map(String.init) ?? timer
            // An instance of a template timer (pg_dump@15-main.timer) is read from its template
            // (pg_dump@.timer) when it has no file of its own, as systemd instantiates it.
            let instance = TemplateInstance(unitName: unitName)
            let (timerPath, timerText) = try Self.read(timer, instance: instance, directory: directory)
            let (timerFile, timerErrors) = UnitFile.parse(timerText, path: timerPath)
            let name = unitName.hasSuffix(".timer") ? String(unitName.dropLast(".timer".count)) : unitName
            let unit = timerFile.assignments.last { $0.section == "Timer" && $0.key == "Unit" }?.value
            let serviceName = unit ?? name + ".service"
            let serviceInstance = TemplateInstance(unitName: serviceName) ?? instance?.with(suffix: "service")
            let (servicePath, serviceText) = try service.map { ($0, try ImportFiles.read($0)) }
                ?? Self.read(directory + serviceName, instance: serviceInstance, directory: directory)
            let (serviceFile, serviceErrors) = UnitFile.parse(serviceText, path: servicePath)
            for error in timerErrors + serviceErrors { print(error, to: &standardError) }

            let result = TimerImporter.convert(timer: timerFile, service: serviceFile, name: name)
            for line in result.timerReport.lines(path: timer) + result.serviceReport.lines(path: servicePath) {
                print(line, to: &standardError)
            }
            let whole = !result.hasLosses && (timerErrors + serviceErrors).isEmpty
            if retire, !whole {
                // The job would not do all the timer did: nothing is written, and the timer stays.
                print("jobctl: \(unitName) not retired, and nothing imported: --retire takes only a timer carried over whole (above)",
                      to: &standardError)
                throw ExitCode(1)
            }
            let (written, failed) = ImportFiles.emit(result.job.map { [$0] } ?? [], into: output, force: force, source: timerPath)
            if let job = result.job, written == 1 {
                print("\(timer): imported as \(job.name).job\(output.map { " in \($0)" } ?? "")", to: &standardError)
            } else {
                print("\(timer): nothing imported: no job file was written (the lines above say why)", to: &standardError)
            }
            let complete = whole && !failed
            if retire, let job = result.job, let output {
                guard complete, written == 1 else {
                    print("jobctl: \(unitName) not retired: no job file was written", to: &standardError)
                    throw ExitCode(1)
                }
                try retireTimer(unit: unitName, job: job.name, directory: output)
            }
            if !complete { throw ExitCode(1) }
        }

        /// The unit file at `path`, or, for an instance with no file of its own, its template's
        /// (beside it) with the instance's specifiers expanded; returns the path read and the text.
        static func read(_ path: String, instance: TemplateInstance?, directory: String) throws -> (String, String) {
            guard let instance, access(path, F_OK) != 0 else { return (path, try ImportFiles.read(path)) }
            let template = directory + instance.templateName
            return (template, instance.expand(try ImportFiles.read(template)))
        }
    }
}

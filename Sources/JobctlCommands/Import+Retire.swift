import ArgumentParser
import JobdControl

extension Jobctl.Import.Timer {
    /// `--retire`: once the running jobd has the job, the timer is disabled and stopped
    /// (`systemctl disable --now`), so the two never both run it; the way back is printed.
    /// Nothing is retired unless jobd took the job: a reload with errors, or a job directory that is
    /// not jobd's, leaves the timer as it was.
    func retireTimer(unit: String, job: String, directory: String) throws {
        var standardError = StandardError()
        let notRetired = "\(unit) not retired: it still runs under systemd"
        do {
            try Jobctl.Reload.parse(["--runtime-dir", runtime.directory]).run()
        } catch {
            print("jobctl: \(notRetired), as jobd did not reload (above)", to: &standardError)
            throw error
        }
        let (_, listing) = try Jobctl.ask(runtime, ControlRequest(command: .list))
        guard listing.jobs?.contains(where: { $0.name == job }) == true else {
            print("jobctl: \(notRetired): jobd has no job \(job) after its reload (is \(directory) jobd's jobs.d?)", to: &standardError)
            throw ExitCode(Jobctl.ExitStatus.failure)
        }
        let disabled = ChildProcess.status(of: ["systemctl", "disable", "--now", unit])
        guard disabled == 0 else {
            print("jobctl: systemctl disable --now \(unit) failed (status \(disabled)); \(unit) and the job \(job) may both run it: "
                  + "retire it by hand, or remove \(directory)/\(job).job and run jobctl reload", to: &standardError)
            throw ExitCode(Jobctl.ExitStatus.failure)
        }
        print("\(unit): retired (systemctl disable --now \(unit)); jobd runs \(job) instead. To go back: "
              + "systemctl enable --now \(unit); rm \(directory)/\(job).job; jobctl reload", to: &standardError)
    }
}

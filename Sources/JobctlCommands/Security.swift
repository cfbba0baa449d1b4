package import ArgumentParser
import JobdConfig
import JobdControl
import JobctlReports

extension Jobctl {
    /// `jobctl security [JOB...]`: how exposed each job's runs are, as `systemd-analyze security`
    /// shows a service.
    package struct Security: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "security",
            abstract: "Show how exposed jobs are, as systemd-analyze security shows services.",
            discussion: """
                For a job: each check of systemd 252's systemd-analyze security (a ✓ or ✗ unless it does \
                not apply, NAME, DESCRIPTION, EXPOSURE), with the same weights, then the overall \
                exposure from 0.0 to 10.0 and systemd's word for it (PERFECT, SAFE, OK, MEDIUM, \
                EXPOSED, UNSAFE, DANGEROUS). Checks on settings jobd has no key for are scored by \
                what a run really gets (jobd.job(5), "Exposure"). Without a job, one line per loaded \
                job, by name; with several, each job's table and then those lines. jobd computes the \
                scores from the definitions it runs (the JSON of jobctl list has them as exposureTenths). \
                Exit status: 0; 1 when a job's exposure is above --threshold, or there is no such job; \
                2 when no daemon runs; 4 when jobd refuses the caller.
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "Jobs' names; without any, every loaded job, one line each.", completion: .custom(Jobctl.completeJobNames))
        var jobs: [String] = []

        @Option(help: "Exit 1 when a job's exposure is above this, from 0 to 100 in tenths (as systemd-analyze security --threshold).")
        var threshold = 100

        package init() {}

        package func validate() throws {
            guard (0...100).contains(threshold) else { throw ValidationError("--threshold: \(threshold) is not from 0 to 100") }
        }

        package func run() throws {
            let colour = Color.enabled(on: .standardOutput)
            var overview: [(name: String, exposureTenths: Int)] = []
            if jobs.isEmpty {
                let (_, response) = try Jobctl.ask(runtime, ControlRequest(command: .list, brief: true))
                // As systemd lists only loaded units: a job file with errors and no previous definition has no score.
                for job in response.jobs ?? [] where job.owner != 0 {
                    overview.append((job.name, try Self.exposure(of: job)))
                }
                print(SecurityTable.overview(overview, colour: colour), terminator: "")
            } else {
                for (index, name) in jobs.enumerated() {
                    let (_, response) = try Jobctl.ask(runtime, ControlRequest(command: .status, job: name))
                    guard let job = response.jobStatus else { throw ExitCode(ExitStatus.failure) }
                    guard job.owner != 0 else {
                        var standardError = StandardError()
                        print("jobctl: \(name) is not loaded (its file has errors: jobctl status \(name))", to: &standardError)
                        throw ExitCode(ExitStatus.failure)
                    }
                    let exposure = try Self.exposure(of: job)
                    if index > 0 { print() }
                    if let checks = job.security {
                        print(SecurityTable.details(name: job.name, exposureTenths: exposure, checks: checks, colour: colour), terminator: "")
                    } else {
                        print("\(job.name): the checks are not shown: you cannot read \(job.file.isEmpty ? "its job file" : job.file)")
                        print("→ Overall exposure level for \(job.name): \(SecurityExposure.text(tenths: exposure))")
                    }
                    overview.append((job.name, exposure))
                }
                if jobs.count > 1 {
                    print()
                    print(SecurityTable.overview(overview, colour: colour), terminator: "")
                }
            }
            if overview.contains(where: { $0.exposureTenths > threshold }) { throw ExitCode(ExitStatus.failure) }
        }

        /// The job's exposure, which a jobd older than jobctl does not send.
        private static func exposure(of job: JobStatus) throws -> Int {
            guard let exposure = job.exposureTenths else {
                var standardError = StandardError()
                print("jobctl: jobd sent no exposure for \(job.name): it is older than this jobctl; restart it", to: &standardError)
                throw ExitCode(ExitStatus.failure)
            }
            return exposure
        }
    }
}

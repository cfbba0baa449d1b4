import JobdProcess
extension JobRunner {
    /// A run left running for the next jobd (issue 36): its process and pipes, what was read of a
    /// line on each, and its cgroup.
    package struct HandedRun: Sendable {
        package var runID: UInt64
        package var process: ProcessSpawner.Spawned
        package var pendingOutput: [UInt8]
        package var pendingError: [UInt8]
        package var cgroup: RunCgroup?
    }

    /// Stops following every run in flight, leaving each running, and returns them with their
    /// pipes open: a restart hands them over. The runner follows none afterwards; jobd exits.
    package func handOver() -> [HandedRun] {
        driver.handOver().map { run in
            HandedRun(runID: run.runID, process: run.process, pendingOutput: run.pendingOutput, pendingError: run.pendingError,
                      cgroup: registry.cgroup(of: run.runID))
        }
    }
}

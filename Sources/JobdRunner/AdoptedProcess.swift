package import JobdConfig

/// A run's process that an earlier jobd started and handed over (issue 36): this jobd is not its
/// parent (jobd-keeper is), so it follows it by a pidfd, reads on from the pipes the earlier one
/// left in systemd's file descriptor store, and learns how it ended from the keeper.
package struct AdoptedProcess: Sendable {
    package var pid: Int32
    /// Whether the process still runs: one that has ended (its end is known) is not looked for,
    /// since its pid may name another process by now.
    package var isRunning: Bool
    /// Its stdout and stderr pipes, or -1 where none was handed over (a crashed jobd's run).
    package var standardOutput: Int32
    package var standardError: Int32
    /// What the earlier jobd had read of a line on each pipe without its end.
    package var pendingOutput: [UInt8]
    package var pendingError: [UInt8]
    /// The run's cgroup, where it has one.
    package var cgroup: RunCgroup?
    /// How it ended, once it has: the keeper's record (``RunTermination/unknown`` when there is none).
    package var end: @Sendable () async -> RunTermination

    package init(
        pid: Int32, isRunning: Bool = true, standardOutput: Int32, standardError: Int32, pendingOutput: [UInt8] = [], pendingError: [UInt8] = [],
        cgroup: RunCgroup?, end: @escaping @Sendable () async -> RunTermination
    ) {
        self.pid = pid
        self.isRunning = isRunning
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.pendingOutput = pendingOutput
        self.pendingError = pendingError
        self.cgroup = cgroup
        self.end = end
    }
}

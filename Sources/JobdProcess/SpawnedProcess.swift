/// A started process, and jobd's ends of it (non-blocking, close-on-exec): what the spawn hands
/// the reactor (``RunReactor``).
package struct SpawnedProcess: Sendable {
    package var pid: Int32
    /// Readable once the process has exited.
    package var pidfd: Int32
    package var standardOutput: Int32
    package var standardError: Int32

    package init(pid: Int32, pidfd: Int32, standardOutput: Int32, standardError: Int32) {
        (self.pid, self.pidfd, self.standardOutput, self.standardError) = (pid, pidfd, standardOutput, standardError)
    }
}

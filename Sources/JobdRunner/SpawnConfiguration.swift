package import JobdConfig

#if canImport(System)
package import System
#else
package import SystemPackage
#endif

/// What a run's process is started with, resolved now: the account and environment files are
/// read at each start, as systemd reads them, so a changed file needs no reload.
package struct SpawnConfiguration: Sendable {
    package var argv: [String]
    package var environment: [String: String]
    /// Where a run that keeps jobd's uid starts, resolved by jobd (`/` for a missing optional one).
    package var workingDirectory: FilePath
    /// `WorkingDirectory=` of a run that switches to its `User=`: entered as the user, after the switch.
    package var userDirectory: WorkingDirectory?
    package var account: Account?
    /// The run's own cgroup, which `jobd-cgexec` enters before the command runs.
    package var cgroup: RunCgroup?
    /// `Nice=`, `UMask=`, `Limit…=`…: given by `jobd-cgexec` before it switches credentials.
    package var attributes = ProcessAttributes()
    /// A fleet run's fence and its `TimeoutStopSec=`: `jobd-cgexec` stays as its supervisor.
    package var fence: (RunFence, stopTimeout: TimeSpan)?
    /// `ProtectSystem=`, `SystemCallFilter=`…: applied by `jobd-cgexec` (issue 27).
    package var sandbox = Sandbox()
    /// The directories of `PrivateTmp=`, made for this run.
    package var privateTmp: PrivateTmp?
    /// A user's own job (``JobDefinition/owningUser``): its sandbox's paths are looked up as the user.
    package var ownedByUser = false

    package init(
        argv: [String], environment: [String: String], workingDirectory: FilePath = FilePath("/"), userDirectory: WorkingDirectory? = nil,
        account: Account? = nil, attributes: ProcessAttributes = ProcessAttributes(), sandbox: Sandbox = Sandbox(), ownedByUser: Bool = false
    ) {
        self.argv = argv
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.userDirectory = userDirectory
        self.account = account
        self.attributes = attributes
        self.sandbox = sandbox
        self.ownedByUser = ownedByUser
    }
}

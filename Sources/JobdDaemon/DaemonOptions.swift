/// How jobd was started.
package struct DaemonOptions: Sendable {
    /// The configuration directory, holding `jobs.d/`.
    package var configDirectory: String
    /// jobd's own environment; jobs do not inherit it.
    package var environment: [String: String]
    /// Where the control socket and the pid file go.
    package var runtimeDirectory: String
    /// Where `Persistent=` stamps and the last boot id are kept.
    package var stateDirectory: String
    /// Where users' own jobs are kept (`--spool-dir`): outside the state directory, so that
    /// `apt purge jobd` keeps them, as Debian's cron keeps `/var/spool/cron/crontabs`.
    package var spoolDirectory: String
    /// This run of jobd's `JOBD_INSTANCE`.
    package var instance: String
    /// What the tests' own build makes go wrong; nothing in jobd's.
    package var faults = DaemonFaults()

    package init(
        configDirectory: String, runtimeDirectory: String, stateDirectory: String, spoolDirectory: String = "/var/spool/jobd",
        instance: String, environment: [String: String]
    ) {
        self.configDirectory = configDirectory
        self.runtimeDirectory = runtimeDirectory
        self.stateDirectory = stateDirectory
        self.spoolDirectory = spoolDirectory
        self.instance = instance
        self.environment = environment
    }
}

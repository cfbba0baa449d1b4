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
    /// This run of jobd's `JOBD_INSTANCE`.
    package var instance: String

    package init(
        configDirectory: String, runtimeDirectory: String, stateDirectory: String, instance: String,
        environment: [String: String]
    ) {
        self.configDirectory = configDirectory
        self.runtimeDirectory = runtimeDirectory
        self.stateDirectory = stateDirectory
        self.instance = instance
        self.environment = environment
    }
}

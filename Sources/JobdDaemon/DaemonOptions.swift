import JobdConfig
import JobdPolicy

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
    /// Where cron's files are looked for: `/` but in tests (`$JOBD_CRON_ROOT`), which put cron's
    /// spool and `cron.allow` in a directory of their own.
    package var cronRoot = "/"
    /// Users' crontabs (`crontab`): cron's spool under ``cronRoot``.
    package var crontabSpool: String { Self.under(cronRoot, CrontabSpool.defaultPath) }
    /// Where `cron.allow` and `cron.deny` are: `/etc` under ``cronRoot``.
    package var cronAccessDirectory: String { Self.under(cronRoot, "/etc") }
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
        if let root = environment["JOBD_CRON_ROOT"], root.hasPrefix("/") { cronRoot = root }
    }

    static func under(_ root: String, _ path: String) -> String {
        root == "/" ? path : (root.hasSuffix("/") ? String(root.dropLast()) : root) + path
    }
}

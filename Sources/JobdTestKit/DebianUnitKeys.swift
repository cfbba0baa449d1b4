/// Keys of Debian 12's own timer services, for the tests of issue 27 that give a job the same
/// sandbox (the unit files in /lib/systemd/system, as the systemd and man-db packages ship them).
package enum DebianUnitKeys {
    /// man-db.service's sandboxing keys.
    package static let manDBSandbox = """
        ProtectSystem=full
        ProtectHome=true
        PrivateTmp=true
        PrivateDevices=true
        ProtectHostname=true
        ProtectClock=true
        ProtectKernelTunables=true
        ProtectKernelModules=true
        ProtectKernelLogs=true
        ProtectControlGroups=true
        LockPersonality=true
        RestrictRealtime=true

        """

    /// logrotate.service's sandboxing keys.
    package static let logrotateSandbox = """
        LockPersonality=true
        MemoryDenyWriteExecute=true
        PrivateDevices=true
        PrivateTmp=true
        ProtectClock=true
        ProtectControlGroups=true
        ProtectHostname=true
        ProtectKernelLogs=true
        ProtectKernelModules=true
        ProtectKernelTunables=true
        ProtectSystem=full
        RestrictNamespaces=true
        RestrictRealtime=true

        """
}

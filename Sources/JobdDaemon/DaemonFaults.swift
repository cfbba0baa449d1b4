import Glibc

/// What a test's daemon makes go wrong, to show that jobd copes: set only by the tests' own build
/// of jobd (`jobd-faults`, Tests/jobd-faults), never by the shipped jobd, which reads nothing for it.
package struct DaemonFaults: Sendable {
    /// SIGUSR2 blocks the main loop this long, as a hung file system or a bug would.
    package var stall: Duration?
    /// At a reload, the loader thread waits this long before it reads (a hung NFS mount, a slow LDAP server).
    package var slowLoad: Duration?
    /// Each run's `User=`/`Group=` look-up waits this long first (a hung LDAP server or sssd).
    package var slowAccountLookUp: Duration?
    /// Added to jobd's wall clock, for its calendar triggers and its fleet claims alike (a skewed node).
    package var clockSkew = Duration.zero
    /// How often the metrics file is rewritten when nothing changes, instead of every minute.
    package var metricsRewrite: Duration?

    package init() {}

    /// What blocks the calling thread for `duration`; `nil` without one.
    static func blocking(_ duration: Duration?) -> (@Sendable () -> Void)? {
        guard let duration else { return nil }
        return { block(duration) }
    }

    private static func block(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        // Interrupted by a signal: the rest of the time.
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }
}

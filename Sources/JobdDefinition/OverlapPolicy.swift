/// `Overlap=`: what happens when a job falls due while a run of it is still going (a run started
/// under an earlier configuration generation counts).
package enum OverlapPolicy: String, Sendable, Hashable, CaseIterable {
    /// The trigger is skipped and logged as `run.skip` (the default, as a systemd timer does).
    case skip
    /// One run waits for the running one to finish; further triggers meanwhile are skipped.
    case queue
    /// The running run is stopped (SIGTERM, then SIGKILL after `TimeoutStopSec=`); the new run
    /// starts once it has exited.
    case replace
    /// Another run starts beside the running one.
    case parallel
}

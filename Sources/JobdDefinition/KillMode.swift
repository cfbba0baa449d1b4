/// `KillMode=`, in systemd's names: what happens to the processes a run leaves behind when its main
/// process has ended (and to all of a run's processes when jobd stops it).
package enum KillMode: String, Sendable, Hashable, CaseIterable {
    /// Every process the run started is stopped (SIGTERM, SIGKILL after `TimeoutStopSec=`), as
    /// systemd stops a service's control group. The default.
    case controlGroup = "control-group"
    /// Only the main process is the run; processes it leaves behind are counted and left running.
    case process
}

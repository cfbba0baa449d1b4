/// The daemon as a whole.
package struct DaemonStatus: Codable, Sendable, Equatable {
    package var pid: Int32
    package var instance: String
    package var generation: UInt64
    package var startedRealtimeUSec: Int64
    package var jobs: Int
    package var liveOwners: Int
    package var liveTimers: Int
    package var armedTimers: Int
    package var runningJobs: Int
    package var lastReload: ReloadReport?
    /// Owners retired by a reload or stop that are still alive (within their grace, or leaked).
    package var retiredOwnersAlive: Int
    /// Retired owners reported as leaked (`owner.leak`) and still alive.
    package var leakedOwners: Int
    /// Job files (and `jobd.conf`) with errors, as `FILE:LINE: error: …`, first error of each.
    package var brokenFiles: [String]?

    package init(
        pid: Int32, instance: String, generation: UInt64, startedRealtimeUSec: Int64, jobs: Int, liveOwners: Int,
        liveTimers: Int, armedTimers: Int, runningJobs: Int, lastReload: ReloadReport?,
        retiredOwnersAlive: Int = 0, leakedOwners: Int = 0
    ) {
        self.retiredOwnersAlive = retiredOwnersAlive
        self.leakedOwners = leakedOwners
        self.pid = pid
        self.instance = instance
        self.generation = generation
        self.startedRealtimeUSec = startedRealtimeUSec
        self.jobs = jobs
        self.liveOwners = liveOwners
        self.liveTimers = liveTimers
        self.armedTimers = armedTimers
        self.runningJobs = runningJobs
        self.lastReload = lastReload
    }
}

package import JobdDefinition

/// A whole configuration directory: jobd's settings and every job.
package struct Configuration: Sendable, Equatable {
    package var daemon: DaemonSettings
    package var jobs: [JobDefinition]

    package init(daemon: DaemonSettings = DaemonSettings(), jobs: [JobDefinition]) {
        self.daemon = daemon
        self.jobs = jobs
    }
}

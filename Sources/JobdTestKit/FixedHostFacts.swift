package import JobdConfig
package import JobdRunner

/// A machine as a test describes it: the paths that exist, its power and virtualization, its
/// capabilities, its user, jobd's limits. Nothing is read from the machine the test runs on.
package struct FixedHostFacts: HostFacts, ConditionFacts {
    package var paths: Set<String> = []
    package var directories: Set<String> = []
    package var nonEmptyFiles: Set<String> = []
    package var onACPower = true
    package var virtualization: (name: String, kind: String)?
    package var capabilities: Set<Int> = []
    package var user: (uid: UInt32, name: String) = (0, "root")
    package var ownLimits = OwnLimits(hard: [:], mayRaise: true)
    package var effectiveUID: UInt32 = 0

    package init() {}

    package var conditions: any ConditionFacts { self }

    package func exists(_ path: String) -> Bool { paths.contains(path) || directories.contains(path) || nonEmptyFiles.contains(path) }
    package func isDirectory(_ path: String) -> Bool { directories.contains(path) }
    package func isNonEmptyFile(_ path: String) -> Bool { nonEmptyFiles.contains(path) }
    package func hasCapability(_ number: Int) -> Bool { capabilities.contains(number) }
}

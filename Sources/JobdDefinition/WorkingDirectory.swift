/// `WorkingDirectory=`: an absolute path; with a leading `-`, a missing directory is not an error.
package struct WorkingDirectory: Sendable, Hashable {
    /// An absolute path, or ``home``.
    package var path: String
    package var optional: Bool

    /// `WorkingDirectory=~`: the run's user's home directory, found at each start.
    package static let home = "~"

    /// The directory for a run as a user whose home is `home`: `nil` for `~` when it has none.
    package func resolved(home: String?) -> WorkingDirectory? {
        guard path == Self.home else { return self }
        return home.map { WorkingDirectory(path: $0, optional: optional) }
    }

    package init(path: String, optional: Bool) {
        self.path = path
        self.optional = optional
    }
}

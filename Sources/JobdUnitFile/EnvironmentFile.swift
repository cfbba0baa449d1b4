/// One `EnvironmentFile=`: an absolute path; with a leading `-`, a missing file is not an error.
package struct EnvironmentFile: Sendable, Hashable {
    package var path: String
    package var optional: Bool

    package init(path: String, optional: Bool) {
        self.path = path
        self.optional = optional
    }
}

/// One `NAME=value` of `Environment=`.
package struct EnvironmentVariable: Sendable, Hashable {
    package var name: String
    package var value: String

    // Written out: a memberwise initializer is internal, and the job definition is another module.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

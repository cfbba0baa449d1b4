/// One `NAME=value` of `Environment=`.
package struct EnvironmentVariable: Sendable, Hashable {
    package var name: String
    package var value: String
}

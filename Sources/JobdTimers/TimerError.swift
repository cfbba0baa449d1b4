/// A failure to set up the timer core's kernel objects.
public struct TimerError: Error, CustomStringConvertible, Sendable {
    /// The call that failed, such as `timerfd_create`.
    public var operation: String
    /// The `errno` it failed with.
    public var errno: Int32

    public var description: String { "\(operation) failed: errno \(errno)" }
}

import CSystemd

/// Sends state changes to the service manager over the `sd_notify` protocol.
///
/// libsystemd finds the socket in `NOTIFY_SOCKET` (a path, or an abstract address starting with `@`)
/// each time; the variable is left in place so that later notifications (watchdog pings, reloads)
/// still reach systemd.
///
/// ```swift
/// let notifier = Notifier()
/// try notifier.send(.ready, .status("3 jobs scheduled"))
/// ```
package struct Notifier: Sendable {
    /// What happened to a notification that did not fail.
    package enum Delivery: Sendable, Hashable {
        /// The message was sent to the socket in `NOTIFY_SOCKET`.
        case sent
        /// `NOTIFY_SOCKET` is not set: jobd is not running as a `Type=notify` service. Not an error.
        case notUnderSystemd
    }

    package init() {}

    /// Sends all `states` in one message, in order.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/notifyFailed`` when `NOTIFY_SOCKET` is
    ///   set but the message could not be sent (no listener, bad address, permissions).
    @discardableResult
    package func send(_ states: NotifyState...) throws(SystemdError) -> Delivery {
        try send(states)
    }

    /// Sends all `states` in one message, in order.
    @discardableResult
    package func send(_ states: [NotifyState]) throws(SystemdError) -> Delivery {
        let message = Self.message(states)
        let result = try SystemdError.check(
            sd_notify(0, message), .notifyFailed,
            "sd_notify(\(message.debugDescription)) to NOTIFY_SOCKET failed; check that the socket exists and accepts datagrams"
        )
        return result == 0 ? .notUnderSystemd : .sent
    }

    /// The exact text ``send(_:)-([NotifyState])`` passes to `sd_notify`: one `KEY=value` per line.
    package static func message(_ states: [NotifyState]) -> String {
        states.flatMap(\.assignments).map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }
}

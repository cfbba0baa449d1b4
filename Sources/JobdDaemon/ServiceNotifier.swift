import JobdLogging
import Logging
import SystemdKit

/// jobd's side of the sd_notify protocol: what it tells systemd and when. A failure to notify is
/// logged once and never stops the daemon (systemd will act on the silence itself).
final class ServiceNotifier {
    private let notifier = Notifier()
    private let logger: Logger
    private var reportedFailure = false

    init(logger: Logger) {
        self.logger = logger
    }

    func send(_ states: NotifyState...) {
        do {
            _ = try notifier.send(states)
        } catch {
            guard !reportedFailure else { return }
            reportedFailure = true
            logger.warning("cannot notify the service manager: \(error)")
        }
    }
}

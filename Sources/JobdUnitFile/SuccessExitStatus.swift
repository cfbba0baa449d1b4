/// `SuccessExitStatus=`: exit statuses and signals that count as a successful run, besides exit
/// status 0, as systemd reads the key (systemd.service(5)): numbers from 0 to 255, the names
/// `systemd-analyze exit-status` lists (``ExitStatusName``), and signal names (`SIGHUP` or `HUP`),
/// separated by spaces; more lines add to the list, an empty one clears it.
package struct SuccessExitStatus: Sendable, Hashable {
    package var statuses: Set<Int32> = []
    package var signals: Set<Int32> = []

    package init(statuses: Set<Int32> = [], signals: Set<Int32> = []) {
        self.statuses = statuses
        self.signals = signals
    }

    /// Adds the words of `text`; returns the first word that is neither.
    package mutating func add(_ text: String) -> String? {
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            if let status = ExitStatusName.status(String(word)) {
                statuses.insert(status)
            } else if let signal = SignalName.number(named: String(word)) {
                signals.insert(signal)
            } else {
                return String(word)
            }
        }
        return nil
    }
}

import Foundation

/// The parts of `jobctl audit --json` (schema version 1) that the soak run reports, summed over
/// every jobd instance in the journal.
struct AuditSummary {
    var verdict = "unreadable"
    var created = 0, released = 0, carriedOver = 0, running = 0, pending = 0, leaked = 0
    var reloads = 0, failedReloads = 0, timersFired = 0, problems = 0, entries = 0
    var incompleteReasons: [String] = []
    var invalidatedByReason: [String: Int] = [:]

    init(json: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return }
        verdict = object["verdict"] as? String ?? "?"
        entries = object["entries"] as? Int ?? 0
        for instance in object["instances"] as? [[String: Any]] ?? [] {
            let owners = instance["owners"] as? [String: Int] ?? [:]
            created += owners["created"] ?? 0
            released += owners["released"] ?? 0
            carriedOver += owners["carriedOver"] ?? 0
            running += owners["running"] ?? 0
            pending += owners["pending"] ?? 0
            leaked += owners["leaked"] ?? 0
            reloads += instance["reloads"] as? Int ?? 0
            failedReloads += instance["failedReloads"] as? Int ?? 0
            problems += (instance["problems"] as? [Any])?.count ?? 0
            incompleteReasons += instance["incompleteReasons"] as? [String] ?? []
            let timers = instance["timers"] as? [String: Any] ?? [:]
            timersFired += timers["fired"] as? Int ?? 0
            for (reason, count) in timers["invalidatedByReason"] as? [String: Int] ?? [:] {
                invalidatedByReason[reason, default: 0] += count
            }
        }
    }

    /// Name and value pairs for the report.
    var lines: [(String, String)] {
        [
            ("verdict", verdict + (incompleteReasons.isEmpty ? "" : " (\(incompleteReasons.joined(separator: "; ")))")),
            ("journal entries read", "\(entries)"),
            ("reloads seen (failed)", "\(reloads) (\(failedReloads))"),
            ("owners created / released / carried over", "\(created) / \(released) / \(carriedOver)"),
            ("owners still alive: running / pending / leaked", "\(running) / \(pending) / \(leaked)"),
            ("timers fired", "\(timersFired)"),
            ("timers invalidated by reason", invalidatedByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")),
            ("problems", "\(problems)"),
        ]
    }
}

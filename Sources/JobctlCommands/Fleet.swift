package import ArgumentParser
import JobdCalendar
import JobdConfig
import JobdFleet
import JobctlReports

extension Jobctl {
    /// `jobctl fleet`: the nodes of the fleet, their heartbeats and their runs in flight, as the
    /// fleet's database has them.
    package struct Fleet: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "fleet",
            abstract: "List the fleet's nodes, their heartbeat age and their runs in flight.",
            discussion: """
                Reads the database of the [Fleet] section of CONFIG_DIR/jobd.conf (with its password \
                file, so run it as jobd's user). A node is listed by its latest jobd start; a heartbeat \
                older than the lease means the node is gone (or cut off from the database).

                Exit status: 0 on success, 2 when the fleet's database cannot be read, 64 on invalid arguments.
                """)

        @Option(name: .customLong("config-dir"), help: "jobd's configuration directory.")
        var configDirectory = "/etc/jobd"

        package init() {}

        package func run() async throws {
            let fleet = try await FleetConnection.open(configDirectory: configDirectory, command: "fleet")
            let nodes: (sessions: [NodeSession], now: RealtimeInstant), claims: [ClaimRecord]
            do {
                nodes = try await fleet.database.nodeSessions()
                claims = try await fleet.database.claims()
            } catch {
                var standardError = StandardError()
                print("jobctl fleet: \(error)", to: &standardError)
                throw ExitCode(2)
            }
            await fleet.close()
            let (sessions, now) = nodes
            let lease = Int64(fleet.settings.lease.microseconds)
            let latest = Dictionary(sessions.map { ($0.node, $0) }) { $0.startedAt > $1.startedAt ? $0 : $1 }
            var rows = [["NODE", "HEARTBEAT", "STATE", "IN FLIGHT", "LAST CLAIM"]]
            for (node, session) in latest.sorted(by: { $0.key < $1.key }) {
                let age = now.microseconds - session.heartbeatAt.microseconds
                let open = claims.filter { $0.node == node && $0.isOpen }
                let last = claims.filter { $0.node == node }.max { $0.claimedAt < $1.claimedAt }
                rows.append([
                    node, TimeFormat.relative(session.heartbeatAt.microseconds, now: now.microseconds),
                    age <= lease ? "alive" : "gone", open.isEmpty ? "-" : open.map(\.key.job).joined(separator: ","),
                    last.map { "\($0.key.job) \(TimeFormat.relative($0.claimedAt.microseconds, now: now.microseconds))" } ?? "-",
                ])
            }
            print(Self.table(rows), terminator: "")
        }

        static func table(_ rows: [[String]]) -> String {
            let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
            return rows.map { row in
                zip(row, widths).enumerated().map { index, cell in
                    index == row.count - 1 ? cell.0 : cell.0 + String(repeating: " ", count: cell.1 - cell.0.count)
                }.joined(separator: "  ")
            }.joined(separator: "\n") + "\n"
        }
    }
}

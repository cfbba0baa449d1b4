import ArgumentParser
import FoundationEssentials
import JobdCalendar
import JobdConfig
import JobdFleet

/// The fleet's database as jobctl reads it: the `[Fleet]` section and password of the
/// configuration directory's jobd.conf (libpq reads the password), a connection that neither migrates nor heartbeats.
struct FleetConnection {
    let settings: FleetSettings
    let configuration: JobdConfiguration
    let database: FleetDatabase

    /// Exit 2 (as for a journal that cannot be read) when the database cannot be read.
    static func open(configDirectory: String, command: String) async throws -> FleetConnection {
        var standardError = StandardError()
        let configuration = JobDirectory(path: configDirectory, databaseCheck: FleetConnectionString.check).read()
        guard let settings = configuration.settings?.fleet else {
            let why = configuration.settingsErrors.first.map { ": \($0)" } ?? ": it has no [Fleet] section"
            print("jobctl \(command): no fleet in \(configDirectory)/jobd.conf\(why)", to: &standardError)
            throw ExitCode(2)
        }
        do {
            let database = try FleetDatabase(
                settings: settings, instance: "jobctl",
                realtime: { RealtimeInstant.now() })
            try await database.connectToRead()
            return FleetConnection(settings: settings, configuration: configuration, database: database)
        } catch {
            print("jobctl \(command): cannot read the fleet's database \(settings.database): \(error)",
                  to: &standardError)
            throw ExitCode(2)
        }
    }

    func close() async { await database.close() }
}

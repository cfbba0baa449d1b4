import ArgumentParser
import JobdConfig

extension Jobctl {
    /// `jobctl check`: validates a configuration without a daemon and reports every error.
    public struct Check: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Validate a configuration directory and report every error in it.",
            discussion: "Exits 0 when every job file is valid, 1 when any is not.")

        @Option(name: .customLong("config-dir"), help: "The configuration directory, holding jobs.d/.")
        var configDirectory = "/etc/jobd"

        public init() {}

        public func run() throws {
            switch JobDirectory(path: configDirectory).loadConfiguration() {
            case .success(let configuration):
                print("\(configDirectory): \(configuration.jobs.count) job(s), no errors")
                for definition in configuration.jobs {
                    let triggers = definition.triggers.map(\.description).joined(separator: " ")
                    print("  \(definition.name): \(triggers)")
                }
            case .failure(let errors):
                var standardError = StandardError()
                print(errors.description, to: &standardError)
                let files = Set(errors.errors.map(\.file)).count
                print("\(errors.errors.count) error(s) in \(files) file(s)", to: &standardError)
                throw ExitCode(1)
            }
        }
    }
}

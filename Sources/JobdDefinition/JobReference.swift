package import JobdUnitFile

/// One job naming another: `OnFailure=notify` in `backup.job` is `JobReference(key: .onFailure, job: "notify")`.
package struct JobReference: Sendable, Hashable {
    var key: JobKey
    package var job: String

    init(key: JobKey, job: String) {
        self.key = key
        self.job = job
    }

    /// The errors of the jobs among `definitions` that name a job no file of `names` defines: a
    /// misspelt `OnFailure=` would otherwise be found only when the failure it was for is not
    /// reported. `names` are the job names of every job file there is, broken ones included (a
    /// broken file's job still exists, and its own error says what is wrong with it). Keyed by the
    /// naming job's name; its errors in the order of its references.
    package static func unknownReferences(in definitions: [JobDefinition], names: Set<String>) -> [String: [ConfigError]] {
        var errors: [String: [ConfigError]] = [:]
        var candidates: [String]?
        for definition in definitions {
            for (reference, line) in definition.references where !names.contains(reference.job) {
                candidates = candidates ?? names.sorted()
                let nearest = KeySpelling.nearest(to: reference.job, among: candidates!)
                errors[definition.name, default: []].append(ConfigError(
                    file: definition.path, line: line,
                    message: "\(reference.key.rawValue)=: no job is named '\(reference.job)' (there is no \(reference.job).job)",
                    hint: nearest.map { "did you mean '\($0)'?" }
                        ?? "name a job by its file's name in jobs.d without .job, or create \(reference.job).job"))
            }
        }
        return errors
    }
}

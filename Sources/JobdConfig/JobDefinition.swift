/// One job, as its file defines it. Two definitions are equal when every setting is: a reload
/// keeps the owner (and so the schedule) of a job whose definition did not change.
public struct JobDefinition: Sendable, Hashable {
    /// The file name without `.job`.
    public var name: String
    /// The file it was read from.
    public var path: String
    public var description: String?
    public var triggers: [Trigger]
    public var command: ExecCommand
    public var workingDirectory: WorkingDirectory?
    /// `Environment=` assignments in order; a later one for the same name wins.
    public var environment: [EnvironmentVariable]

    public init(
        name: String, path: String, description: String? = nil, triggers: [Trigger],
        command: ExecCommand, workingDirectory: WorkingDirectory? = nil,
        environment: [EnvironmentVariable] = []
    ) {
        self.name = name
        self.path = path
        self.description = description
        self.triggers = triggers
        self.command = command
        self.workingDirectory = workingDirectory
        self.environment = environment
    }
}

/// What makes a job fall due.
public enum Trigger: Sendable, Hashable, CustomStringConvertible {
    /// `OnStartupSec=`: once, this long after jobd started.
    case startup(TimeSpan)
    /// `OnUnitActiveSec=`: this long after the job last started.
    case unitActive(TimeSpan)
    /// `OnUnitInactiveSec=`: this long after the job last finished.
    case unitInactive(TimeSpan)

    public var description: String {
        switch self {
        case .startup(let span): "OnStartupSec=\(span)"
        case .unitActive(let span): "OnUnitActiveSec=\(span)"
        case .unitInactive(let span): "OnUnitInactiveSec=\(span)"
        }
    }
}

/// `WorkingDirectory=`: an absolute path; with a leading `-`, a missing directory is not an error.
public struct WorkingDirectory: Sendable, Hashable {
    public var path: String
    public var optional: Bool
}

/// One `NAME=value` of `Environment=`.
public struct EnvironmentVariable: Sendable, Hashable {
    public var name: String
    public var value: String
}

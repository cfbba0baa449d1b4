import ArgumentParser
import Glibc
import SystemdKit

/// Which journal `jobctl audit` and `jobctl logs` read, the local one, a directory of journal files
/// (`journalctl --directory`) or named files (`journalctl --file`), and which of its entries: by
/// time and boot, as journalctl selects them.
struct JournalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Read the journal files in DIR instead of the local journal.", valueName: "DIR"))
    var directory: String?

    @Option(name: .customLong("file"), parsing: .upToNextOption,
            help: ArgumentHelp("Read exactly these journal files.", valueName: "FILE"))
    var files: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Only entries at or after TIME.", valueName: "TIME"))
    var since: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Only entries at or before TIME.", valueName: "TIME"))
    var until: String?

    @Option(name: [.customShort("b"), .long],
            help: ArgumentHelp("Only entries of one boot: the current one without a value, else an ID or an offset (-1).", valueName: "ID|OFFSET"))
    var boot: String?

    func validate() throws {
        if directory != nil && !files.isEmpty { throw ValidationError("--directory and --file cannot be combined") }
        if let boot, BootSelector(boot) == nil {
            throw ValidationError("'\(boot)' is not a boot: expected a boot ID (32 hex digits, as in journalctl --list-boots) or an offset such as -1")
        }
    }

    /// `--since` and `--until` in microseconds since the epoch.
    func timeRange() throws -> (since: UInt64?, until: UInt64?) {
        try JournalTime.range(since: since, until: until)
    }

    /// The boot id `--boot` names in `source`, for a `_BOOT_ID=` match; `nil` without `--boot`.
    func bootID(in source: JournalReader.Source) throws -> String? {
        try boot.flatMap(BootSelector.init).map { try Self.bootID($0, in: source) }
    }

    /// The journal files to open; throws when a named directory or file is not there.
    func source() throws(SystemdError) -> JournalReader.Source {
        if let directory {
            var status = stat()
            guard stat(directory, &status) == 0 else {
                throw SystemdError(.journalReadFailed, errno: .ENOENT, context: "--directory \(directory)")
            }
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw SystemdError(.journalReadFailed, errno: .ENOTDIR, context: "--directory \(directory)")
            }
            return .directory(directory)
        }
        if !files.isEmpty {
            for file in files where access(file, R_OK) != 0 {
                throw SystemdError(.journalReadFailed, errno: .ENOENT, context: "--file \(file): not a readable file")
            }
            return .files(files)
        }
        return .local
    }

    static func describe(_ source: JournalReader.Source) -> String {
        switch source {
        case .local: "the local journal"
        case .directory(let path): path
        case .files(let paths): paths.joined(separator: ", ")
        }
    }

    /// The boot id `selector` names in `source`, for a `_BOOT_ID=` match.
    static func bootID(_ selector: BootSelector, in source: JournalReader.Source) throws -> String {
        let boots: [String]
        if case .id(_, 0) = selector { boots = [] } else if case .current = selector { boots = [] } else {
            boots = try JournalReader(source).boots().map(\.id)
        }
        let current = try ID128.bootID()
        do {
            return try selector.resolve(boots: boots, current: current)
        } catch {
            throw ValidationError("--boot: \(error.description)")
        }
    }
}

import ArgumentParser
import Foundation
import SystemdKit

/// Which journal `jobctl audit` and `jobctl logs` read: the local one, a directory of journal files
/// (`journalctl --directory`), or named files (`journalctl --file`).
struct JournalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Read the journal files in DIR instead of the local journal.", valueName: "DIR"))
    var directory: String?

    @Option(name: .customLong("file"), parsing: .upToNextOption,
            help: ArgumentHelp("Read exactly these journal files.", valueName: "FILE"))
    var files: [String] = []

    func validate() throws {
        if directory != nil && !files.isEmpty { throw ValidationError("--directory and --file cannot be combined") }
    }

    /// The journal files to open; throws when a named directory or file is not there.
    func source() throws(SystemdError) -> JournalReader.Source {
        var isDirectory: ObjCBool = false
        if let directory {
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
                throw SystemdError(.journalReadFailed, errno: .ENOENT, context: "--directory \(directory)")
            }
            guard isDirectory.boolValue else {
                throw SystemdError(.journalReadFailed, errno: .ENOTDIR, context: "--directory \(directory)")
            }
            return .directory(directory)
        }
        if !files.isEmpty {
            for file in files where !FileManager.default.isReadableFile(atPath: file) {
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

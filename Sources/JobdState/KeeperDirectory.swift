import Glibc
package import JobdConfig
package import JobdHandover
import JobdSystem

/// Where jobd-keeper writes how each process it reaped ended (issue 36): `JOBD_KEEPER_DIR`, which
/// the keeper sets for jobd, or `keeper` in jobd's runtime directory.
package struct KeeperDirectory: Sendable {
    package let path: String

    package init(environment: [String: String], runtimeDirectory: String) {
        path = environment["JOBD_KEEPER_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? runtimeDirectory + "/keeper"
    }

    /// Whether jobd-keeper is this process's parent: only then does a run outlive jobd with a parent
    /// that learns its end, so only then may a restart hand runs over.
    package static func isParent(environment: [String: String]) -> Bool {
        environment["JOBD_KEEPER"].flatMap { Int32($0) } == getppid()
    }

    /// How `process` ended, once the keeper has recorded it; the record is taken (removed).
    package func take(_ process: ProcessIdentity) -> EndedRun? {
        let file = path + "/" + String(process.pid)
        guard case .success(let text) = FileSystem.readTextFile(file, limit: 4_096),
              let ended = EndedRun(keeperText: Substring(text)), ended.process == process else { return nil }
        _ = unlink(file)
        return ended
    }

    /// Removes every record but those of `kept`'s processes: the holder also records processes no
    /// jobd follows (a run's daemon that outlived it under `KillMode=process`), which nobody reads.
    package func removeAll(except kept: Set<Int32>) {
        guard case .success(let names) = FileSystem.directoryEntries(path) else { return }
        for name in names where Int32(name).map({ !kept.contains($0) }) ?? false { _ = unlink(path + "/" + name) }
    }

    /// How `process` ended, waiting for the keeper's record of a process that has just ended: the
    /// keeper writes it after the process exits, a moment after its pidfd said so.
    package func awaitEnd(of process: ProcessIdentity) async -> RunTermination {
        // No keeper ever wrote here (jobd started on its own): nobody will.
        guard access(path, F_OK) == 0 else { return .unknown }
        for _ in 0..<500 {
            if let ended = take(process) { return ended.termination }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }
        }
        return .unknown
    }

    /// The start time of the live process `pid`, or `nil` when there is none. Read at each run's
    /// spawn: one open and one read into the stack (a few hundred bytes; the command is at most 64).
    package static func startTicks(of pid: Int32) -> UInt64? {
        FileSystem.readKernelFile("/proc/\(pid)/stat", capacity: 1_024) { ProcessIdentity.startTicks(procStat: $0) } ?? nil
    }
}

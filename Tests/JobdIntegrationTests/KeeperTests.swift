import Foundation
import JobdConfig
import JobdHandover
import JobdTestKit
import Testing

/// jobd-keeper, the parent that outlives its worker (issue 36): a process the worker leaves behind
/// becomes the keeper's child, and its real end is written down for the next jobd.
@Suite(.serialized) struct KeeperTests {
    static let keeper = DaemonProcess.productsDirectory + "/jobd-keeper"

    @Test func aProcessItsWorkerLeftBehindHasItsRealEndKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jobd-keeper-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The run reads until its worker, the only writer of its stdin, is gone: it ends after the
        // worker, as a run handed over does, and exits 7.
        let worker = "exec 4> >(cat >/dev/null; exit 7); echo $! > \(directory)/run.pid; exit 0"
        let keeper = try CapturedProcess.run(Self.keeper, ["/bin/bash", "-c", worker],
                                             environment: ["JOBD_KEEPER_DIR": directory + "/ended", "PATH": "/usr/bin:/bin"])
        #expect(keeper.exitedNormally && keeper.status == 0, "the keeper exits with its worker's status: \(keeper.standardError)")
        let pid = try #require(Int32(String(contentsOfFile: directory + "/run.pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let text = try String(contentsOfFile: "\(directory)/ended/\(pid)", encoding: .utf8)
        let ended = try #require(EndedRun(keeperText: Substring(text)), "the keeper's file reads: \(text)")
        #expect(ended.termination == .exited(7))
        #expect(ended.process.pid == pid && ended.process.startTicks > 0)
    }
}

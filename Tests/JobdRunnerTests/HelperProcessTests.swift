import Glibc
import JobdLocks
import JobdProcess
import JobdRunner
import Testing

/// The helpers jobd runs to their end (sendmail, rm, jobd-cgexec reading files as a user): input
/// larger than a pipe holds goes in while output comes out, each cut at its limit, and a helper
/// that never reads its input ends the write, not jobd.
@Suite struct HelperProcessTests {
    /// On a thread of its own that ends afterwards, as jobd runs helpers.
    static func run(_ script: String, input: [UInt8], outputLimit: Int) async throws -> HelperProcess {
        let result = try await withCheckedThrowingContinuation { continuation in
            do {
                try DetachedThread.start {
                    continuation.resume(with: HelperProcess.run("/bin/sh", arguments: ["-c", script], environment: [:], input: input,
                                                                outputLimit: outputLimit).mapError { $0 as any Error })
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        return result
    }

    @Test func inputLargerThanAPipeGoesInWhileOutputComesOutEachCutAtItsLimit() async throws {
        let input = [UInt8](repeating: UInt8(ascii: "x"), count: 300_000)
        let helper = try await Self.run("cat; echo said >&2; exit 3", input: input, outputLimit: 100_000)
        #expect(helper.exit == .exited(3) && helper.status == "exited with status 3")
        #expect(helper.output.count == 100_000 && helper.output.allSatisfy { $0 == UInt8(ascii: "x") })
        #expect(helper.errorText == "said\n")
    }

    @Test func aHelperThatNeverReadsItsInputEndsTheWriteNotJobd() async throws {
        let helper = try await Self.run("exec 0<&-; echo gone", input: [UInt8](repeating: 0, count: 1 << 20), outputLimit: 64)
        #expect(helper.exit == .exited(0))
        #expect(String(decoding: helper.output, as: UTF8.self) == "gone\n")
    }
}

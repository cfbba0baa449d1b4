import Foundation
import JobdTestKit
import Testing

/// `jobctl run JOB --wait` shows the run's output as jobd logs it, each line on the stream the job
/// wrote it to, and exits with the run's status.
@Suite(.serialized) struct RunOutputTests {
    @Test func runWaitPrintsStdoutAndStderrOnTheirStreamsInOrder() throws {
        let jobd = try FailureHandlingTests.Daemon(jobs: [
            "talker": """
                [Job]
                ExecStart=/bin/sh -c 'i=1; while [ $$i -le 200 ]; do echo "out $$i"; echo "err $$i" >&2; i=$$((i+1)); done; exit 7'
                """,
        ])
        let jobctl = Process()
        jobctl.executableURL = URL(fileURLWithPath: DaemonProcess.productsDirectory + "/jobctl")
        jobctl.arguments = ["run", "talker", "--wait", "--runtime-dir", jobd.runtime]
        let (out, err) = (Pipe(), Pipe())
        jobctl.standardOutput = out
        jobctl.standardError = err
        try jobctl.run()
        // Both pipes drained at once, so that neither fills while the other is read.
        let errors = Guarded(Data())
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errors.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() }
            drained.signal()
        }
        let standardOutput = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        jobctl.waitUntilExit()
        drained.wait()
        let standardError = String(decoding: errors.withLock { $0 }, as: UTF8.self)
        #expect(jobctl.terminationStatus == 7)
        #expect(standardOutput == (1...200).map { "out \($0)\n" }.joined(), "only the job's stdout, in order")
        #expect(standardError.hasPrefix((1...200).map { "err \($0)\n" }.joined()), "the job's stderr, in order")
        let end = standardError.split(separator: "\n").last ?? ""
        #expect(end.hasPrefix("jobctl: run ") && end.hasSuffix(" of talker: exit-code 7"), "then how the run ended: \(end)")
        #expect(standardError.split(separator: "\n").count == 201, "and nothing else")

        let (quiet, quietOutput) = try jobd.jobctl(["run", "talker", "--wait", "--quiet"])
        #expect(quiet == 7 && !quietOutput.contains("out 1\n") && quietOutput.contains("of talker: exit-code 7"), "\(quietOutput)")
    }
}

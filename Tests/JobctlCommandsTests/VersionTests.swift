import Foundation
import JobdTestKit
import Testing

/// `jobctl --version` names the commit of the build: in a git checkout, what `git describe` says
/// now (scripts/version records it before each build of scripts/test, scripts/install, scripts/run).
@Suite struct VersionTests {
    @Test func versionNamesTheCommitGitDescribes() throws {
        let root = DaemonProcess.packageRoot()
        let jobctl = try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobctl", ["--version"])
        #expect(jobctl.status == 0)
        let said = jobctl.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(said.hasPrefix("0.1.0 (git ") && said.hasSuffix(")"), "\(said)")

        guard FileManager.default.fileExists(atPath: root + "/.git"),
              let git = ["/usr/bin/git", "/bin/git"].first(where: FileManager.default.isExecutableFile) else {
            FileHandle.standardError.write(Data("\n*** not a git checkout: jobctl --version says \(said) ***\n".utf8))
            return
        }
        let describe = try CapturedProcess.run(git, ["-C", root, "describe", "--always", "--dirty", "--abbrev=12"])
        #expect(describe.status == 0, "\(describe.standardError)")
        let commit = describe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(said == "0.1.0 (git \(commit))",
                "jobctl was built from another state of the checkout than git describes now: run scripts/version, then build again (scripts/test does both)")
    }
}

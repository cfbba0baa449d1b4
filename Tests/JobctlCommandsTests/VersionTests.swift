import Foundation
import JobdTestKit
import Testing

/// `jobd --version` and `jobctl --version` name the commit of the build and the licence: what scripts/version recorded from
/// `git describe` in `Sources/CBuildInfo/build-info.h` before the build (scripts/setup runs it for
/// scripts/test, scripts/install and scripts/run).
@Suite struct VersionTests {
    let root = DaemonProcess.packageRoot()

    /// Both binaries say what the header recorded ("unknown" without one).
    @Test(arguments: ["jobd", "jobctl"]) func versionNamesTheRecordedCommit(product: String) throws {
        let binary = try CapturedProcess.run(DaemonProcess.productsDirectory + "/" + product, ["--version"])
        #expect(binary.status == 0)
        let said = binary.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let header = (try? String(contentsOfFile: root + "/Sources/CBuildInfo/build-info.h", encoding: .utf8)) ?? ""
        let recorded = header.split(separator: "\"").dropFirst().first.map(String.init) ?? "unknown"
        let lines = said.split(separator: "\n").map(String.init)
        #expect(lines.first == "0.1.0 (git \(recorded))", "\(product): the build did not pick up build-info.h: \(header)")
        // The licence the LICENSE file and debian/copyright state.
        #expect(Array(lines.dropFirst()) == ["License: Apache License 2.0 (Apache-2.0)"])
        let license = try String(contentsOfFile: root + "/LICENSE", encoding: .utf8)
        #expect(license.contains("Apache License") && license.contains("Version 2.0, January 2004"))
    }

    /// scripts/version records what `git describe` says of the checkout now.
    @Test func scriptRecordsWhatGitDescribes() throws {
        guard FileManager.default.fileExists(atPath: root + "/.git"),
              let git = ["/usr/bin/git", "/bin/git"].first(where: FileManager.default.isExecutableFile) else {
            FileHandle.standardError.write(Data("\n*** SKIPPED: not a git checkout, scripts/version says unknown ***\n".utf8))
            return
        }
        let describe = try CapturedProcess.run(git, ["-C", root, "describe", "--always", "--dirty", "--abbrev=12"])
        let script = try CapturedProcess.run(root + "/scripts/version", ["--print"])
        #expect(describe.status == 0 && script.status == 0, "\(describe.standardError)\(script.standardError)")
        #expect(script.standardOutput == describe.standardOutput && !script.standardOutput.isEmpty)
    }
}

/// A misspelt command gets the command it most likely meant, and exit 64 (EX_USAGE).
@Suite struct UnknownCommandTests {
    @Test(arguments: [("lsit", "list"), ("stauts", "status"), ("reloda", "reload"), ("frobnicate", nil)] as [(String, String?)])
    func aMisspeltCommandGetsADidYouMean(word: String, meant: String?) throws {
        let jobctl = try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobctl", [word])
        #expect(jobctl.status == 64)
        let expected = "jobctl: unknown command '\(word)'" + (meant.map { "; did you mean '\($0)'?" } ?? "") + " (jobctl --help lists the commands)\n"
        #expect(jobctl.standardError == expected)
    }
}

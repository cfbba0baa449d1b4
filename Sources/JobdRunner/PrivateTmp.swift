import Glibc
import JobdProcess
import SystemPackage

/// The directories of a run with `PrivateTmp=`, as systemd makes a service's: one under `/tmp` and
/// one under `/var/tmp`, each a root-only directory (`jobd-private-<job>-XXXXXX`, 0700) holding the
/// `tmp` (1777) that the run sees as its `/tmp` or `/var/tmp`, on the host's disk rather than in
/// memory. Removed when the run ends, without following anything the run left there.
package struct PrivateTmp: Sendable, Equatable {
    /// The two root-only directories.
    package let tmp: String
    package let varTmp: String

    package init(tmp: String, varTmp: String) {
        (self.tmp, self.varTmp) = (tmp, varTmp)
    }

    /// The pair for `jobd-cgexec --private-tmp`.
    var mounted: (String, String) { (tmp + "/tmp", varTmp + "/tmp") }

    /// Makes both; on failure, removes what it made.
    static func make(job: String) -> Result<PrivateTmp, RunPreparationError> {
        var made: [String] = []
        for parent in ["/tmp", "/var/tmp"] {
            // A job name may hold ':', which separates the two in jobd-cgexec's --private-tmp.
            let name = String(job.prefix(64).map { $0 == ":" ? "_" : $0 })
            var template = Array("\(parent)/jobd-private-\(name)-XXXXXX".utf8CString)
            let directory = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) }
            if let directory { made.append(directory) }
            guard let directory, mkdir(directory + "/tmp", 0o700) == 0, chmod(directory + "/tmp", 0o1777) == 0 else {
                let reason = String(cString: strerror(errno))
                for directory in made { rmdir(directory + "/tmp"); rmdir(directory) }
                return .failure(.init(description: "PrivateTmp=: cannot make a directory in \(parent): \(reason)"))
            }
        }
        return .success(PrivateTmp(tmp: made[0], varTmp: made[1]))
    }

    /// Removes both, with all the run left in them: by coreutils' `rm -rf --one-file-system`,
    /// which never follows a symbolic link the run left and walks a tree of any depth without
    /// recursion (a run can make one deeper than any stack), started with an empty environment.
    /// Returns why it failed, if it did.
    func remove() async -> String? {
        let (tmp, varTmp) = (tmp, varTmp)
        let ran = await SystemRunDriver.aside {
            HelperProcess.run("/bin/rm", arguments: ["-rf", "--one-file-system", "--", tmp, varTmp], environment: [:])
                .mapError { RunPreparationError(description: $0.description) }
        }
        switch ran {
        case .success(let result):
            return result.exit == .exited(0) ? nil : result.errorText.split(separator: "\n").last.map(String.init) ?? "rm \(result.status)"
        case .failure(let error):
            return error.description
        }
    }
}

import Glibc

/// The directories of a run with `PrivateTmp=`, as systemd makes a service's: one under `/tmp` and
/// one under `/var/tmp`, each a root-only directory (`jobd-private-<job>-XXXXXX`, 0700) holding the
/// `tmp` (1777) that the run sees as its `/tmp` or `/var/tmp`, on the host's disk rather than in
/// memory. Removed when the run ends, without following anything the run left there.
struct PrivateTmp: Sendable {
    /// The two root-only directories.
    let tmp: String
    let varTmp: String

    /// The pair for `jobd-cgexec --private-tmp`.
    var mounted: (String, String) { (tmp + "/tmp", varTmp + "/tmp") }

    /// Makes both; on failure, removes what it made.
    static func make(job: String) -> Result<PrivateTmp, JobRunner.PreparationError> {
        var made: [String] = []
        for parent in ["/tmp", "/var/tmp"] {
            var template = Array("\(parent)/jobd-private-\(job.prefix(64))-XXXXXX".utf8CString)
            let directory = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) }
            guard let directory, mkdir(directory + "/tmp", 0o700) == 0, chmod(directory + "/tmp", 0o1777) == 0 else {
                let reason = String(cString: strerror(errno))
                made.forEach(Self.remove)
                return .failure(.init(description: "PrivateTmp=: cannot make a directory in \(parent): \(reason)"))
            }
            made.append(directory)
        }
        return .success(PrivateTmp(tmp: made[0], varTmp: made[1]))
    }

    /// Removes both, with all the run left in them.
    func remove() {
        Self.remove(tmp)
        Self.remove(varTmp)
    }

    private static func remove(_ directory: String) {
        let parent = open("/" + directory.split(separator: "/").dropLast().joined(separator: "/"), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { return }
        defer { close(parent) }
        let name = String(directory.split(separator: "/").last ?? "")
        removeTree(in: parent, name: name)
    }

    /// Removes `name` in the directory `parent`: descends only into real directories (opened with
    /// O_NOFOLLOW), so a symbolic link the run left is removed, never followed.
    private static func removeTree(in parent: Int32, name: String) {
        if unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM) { return }
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0, let stream = fdopendir(fd) else { return }
        var names: [String] = []
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if entryName != "." && entryName != ".." { names.append(entryName) }
        }
        for entryName in names { removeTree(in: dirfd(stream), name: entryName) }
        closedir(stream)
        unlinkat(parent, name, AT_REMOVEDIR)
    }
}

import Foundation
import Glibc
import JobdTestKit
import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile

/// A read opens each job file by its name in the open `jobs.d`, trusting the `stat` the file cache
/// made of it a moment before for its type, and checks on the opened file that it is that file.
@Suite struct ReadByNameTests {
    static let job = "[Job]\nOnUnitActiveSec=1h\nExecStart=/bin/true\n"
    static let other = "[Job]\nOnUnitActiveSec=2h\nExecStart=/bin/true\n"

    func status(_ path: String) -> stat {
        var status = stat()
        #expect(stat(path, &status) == 0)
        return status
    }

    /// Replaces `jobs.d/NAME.job` with a new file (an editor's save: a rename over it).
    func replace(_ config: TemporaryConfiguration, job name: String, with text: String) throws {
        let path = config.path + "/jobs.d/" + name + ".job"
        try text.write(toFile: path + ".new", atomically: false, encoding: .utf8)
        #expect(rename(path + ".new", path) == 0)
    }

    /// A file replaced between the `stat` and the open is not read as the file the `stat` saw: the
    /// caller reads it again by its path. A link is refused too, and read by its path.
    @Test func aFileReplacedSinceItsStatOrALinkIsNotReadByName() throws {
        let config = try TemporaryConfiguration(jobs: ["a": Self.job])
        let jobs = config.path + "/jobs.d"
        let before = status(jobs + "/a.job")
        try replace(config, job: "a", with: Self.other)
        let directory = open(jobs, O_RDONLY | O_DIRECTORY)
        #expect(directory >= 0)
        defer { close(directory) }

        let stale = FileSystem.readFile(named: "a.job", in: directory, device: UInt64(before.st_dev), inode: UInt64(before.st_ino))
        #expect(stale == nil, "replaced since its stat: not read as that file")
        let now = status(jobs + "/a.job")
        let fresh = try #require(FileSystem.readFile(named: "a.job", in: directory, device: UInt64(now.st_dev), inode: UInt64(now.st_ino)))
        #expect(try fresh.get().text == Self.other)
        #expect(try fresh.get().status.st_ino == now.st_ino)

        #expect(symlink(jobs + "/a.job", jobs + "/b.job") == 0)
        #expect(FileSystem.readFile(named: "b.job", in: directory, device: UInt64(now.st_dev), inode: UInt64(now.st_ino)) == nil)
        #expect(try FileSystem.readFile(jobs + "/b.job").get().text == Self.other, "by its path, the link is followed")
        let missing = FileSystem.readFile(named: "c.job", in: directory, device: 0, inode: 0)
        #expect(missing.map { if case .failure(let error) = $0 { error.errno == ENOENT } else { false } } == true)
    }

    /// A file replaced after the read's `stat` of it is read as the file there now, and kept by that
    /// file's stamp (the next read reuses it), never by the stamp of the file it replaced: when
    /// that one comes back, it is read again, not taken for the second.
    @Test func aFileReplacedDuringTheReadIsKeptAsTheFileRead() throws {
        let config = try TemporaryConfiguration(jobs: ["a": Self.job])
        let jobs = config.path + "/jobs.d"
        let directory = JobDirectory(path: config.path)
        var cache = JobFileCache()
        let later = JobFileCache.realtimeNanoseconds() + 10_000_000_000
        cache.now = { later }

        #expect(link(jobs + "/a.job", config.path + "/a.first") == 0)
        // What read(using:) does, with the file replaced between the stat and the read.
        guard case .success(let begun) = cache.beginRead(in: jobs, listing: directory.jobsDirectoryNames) else {
            Issue.record("the jobs directory was not read")
            return
        }
        #expect(begun.names == ["a.job"])
        try replace(config, job: "a", with: Self.other)
        let read = directory.readJobFiles(named: [("a.job", cache.stamp(of: 0))])
        #expect(try read[0].result.get().triggers == [.unitActive(.seconds(7_200))], "the file there now")
        cache.store(0, result: read[0].result, status: read[0].status)
        cache.endRead()

        #expect(directory.read(using: &cache).jobs.first?.triggers == [.unitActive(.seconds(7_200))])
        #expect((cache.reused, cache.parsed) == (1, 0), "kept as the file that was read")
        #expect(rename(config.path + "/a.first", jobs + "/a.job") == 0)
        #expect(directory.read(using: &cache).jobs.first?.triggers == [.unitActive(.seconds(3_600))])
        #expect(cache.parsed == 1, "the first file is back: read again")
    }
}

import Foundation
import Glibc
import JobdTestKit
import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile

/// A reload reads and parses only the job files that changed, and never misses a change.
@Suite struct JobFileCacheTests {
    static let job = "[Job]\nOnUnitActiveSec=1h\nExecStart=/bin/true\n"
    static let other = "[Job]\nOnUnitActiveSec=2h\nExecStart=/bin/true\n"

    /// A cache whose clock reads `now()` seconds after the newest file time the test made.
    final class Clock: @unchecked Sendable {
        var nanoseconds: Int64 = JobFileCache.realtimeNanoseconds()
        func advance(seconds: Int64) { nanoseconds += seconds * 1_000_000_000 }
    }

    func cache(_ clock: Clock) -> JobFileCache {
        var cache = JobFileCache()
        cache.now = { clock.nanoseconds }
        return cache
    }

    /// A cache whose clock reads `seconds` after now: files written now are that old at its reads.
    func cache(after seconds: Int64) -> JobFileCache {
        let clock = Clock()
        clock.advance(seconds: seconds)
        return cache(clock)
    }

    func definitions(_ configuration: JobdConfiguration) -> [String: JobDefinition] {
        Dictionary(uniqueKeysWithValues: configuration.jobs.map { ($0.name, $0) })
    }

    @Test func unchangedFilesAreReusedAndChangedOnesReadAgain() throws {
        let config = try TemporaryConfiguration(jobs: ["a": Self.job, "b": Self.job, "c": Self.job])
        let clock = Clock()
        clock.advance(seconds: 10)
        var cache = cache(clock)
        let directory = JobDirectory(path: config.path)

        let first = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed) == (0, 3))
        let second = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed) == (3, 0))
        #expect(definitions(second) == definitions(first))
        #expect(definitions(second) == definitions(directory.read()), "the same definitions as a read without a cache")

        try config.write(job: "b", Self.other)
        try config.remove(job: "c")
        try config.write(job: "d", Self.job)
        clock.advance(seconds: 10)
        let third = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed) == (1, 2))
        #expect(definitions(third) == definitions(directory.read()))
        #expect(cache.count == 3, "the deleted file is forgotten")
    }

    /// A file written within the timestamp granularity of the read is read again at the next
    /// reload, however its times look: a write just after the read may have left them as they were.
    /// So is the jobs directory listed again, whose file was created then.
    @Test func aFileYoungerThanTheRacyWindowIsNotKept() throws {
        let config = try TemporaryConfiguration(jobs: ["a": Self.job])
        let clock = Clock()
        var cache = cache(clock)
        let directory = JobDirectory(path: config.path)
        _ = directory.read(using: &cache)
        _ = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed, cache.listed) == (0, 1, true), "written within the window: read again")

        clock.advance(seconds: 4)
        _ = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed, cache.listed) == (0, 1, true), "older now: read once more, and kept")
        _ = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed, cache.listed) == (1, 0, false))
    }

    /// A file changed longer ago than the coarse clock's lag and its file system's granularity is
    /// kept, though that is less than the 3 s window whole-second times need.
    @Test func aFileChangedOverASecondBeforeTheReadIsKept() throws {
        let config = try TemporaryConfiguration(jobs: ["a": Self.job, "b": Self.other])
        var status = stat()
        #expect(stat(config.path + "/jobs.d/a.job", &status) == 0)
        let clock = Clock()
        clock.nanoseconds = JobFileCache.realtimeNanoseconds() + 1_200_000_000
        var cache = cache(clock)
        let directory = JobDirectory(path: config.path)
        _ = directory.read(using: &cache)
        _ = directory.read(using: &cache)
        // A file system keeping whole seconds only, or not local, still needs the window.
        let local = FileSystem.fileSystemType(device: UInt64(status.st_dev)).map(JobFileCache.localFileSystems.contains) ?? false
        #expect(cache.reused == (status.st_ctim.tv_nsec != 0 && local ? 2 : 0))
    }

    /// Which file system a device holds, as the racy rule asks: `/proc`'s is `proc`, and none is
    /// named for a device no mount has.
    @Test func fileSystemTypesComeFromTheMountTable() throws {
        var status = stat()
        #expect(stat("/proc/self", &status) == 0)
        #expect(FileSystem.fileSystemType(device: UInt64(status.st_dev)) == "proc")
        #expect(FileSystem.fileSystemType(device: UInt64.max) == nil)
    }

    /// When a stamp is settled: its change time before the read's start by more than the clock's
    /// lag and the granularity (bounded by the change time's own nanoseconds), or by the whole
    /// window for a change time of a whole second or on a file system that is not local.
    @Test(arguments: [
        // nanoseconds of the change time, the granularity bound, local, the read's start after it, settled
        (0, nil, true, 2_900_000_000, false), (0, nil, true, 3_100_000_000, true), (0, 1, true, 2_900_000_000, false),
        (500_000_000, nil, true, 550_000_000, false), (500_000_000, nil, true, 650_000_000, true),
        (123_456_789, 1, true, 99_000_000, false), (123_456_789, 1, true, 101_000_000, true),
        (123_456_789, 3, true, 100_000_002, false), (10_000_000, 10_000_000, true, 111_000_000, true),
        (123_456_789, 1, false, 2_900_000_000, false), (123_456_789, 1, false, 3_100_000_000, true),
    ] as [(Int, Int64?, Bool, Int64, Bool)])
    func settledStamps(nanoseconds: Int, granularity: Int64?, local: Bool, readStartAfter: Int64, settled: Bool) {
        var status = stat()
        status.st_ctim = timespec(tv_sec: 1_800_000_000, tv_nsec: nanoseconds)
        // A modification time later than the change time (set by `touch -d`) matters only where the
        // whole window applies, to the later of the two times.
        status.st_mtim = nanoseconds != 0 && local ? timespec(tv_sec: 1_900_000_000, tv_nsec: 0) : status.st_ctim
        let stamp = JobFileCache.Stamp(status)
        let readStart = stamp.changedNanoseconds + readStartAfter
        #expect(JobFileCache.isSettled(stamp, readStart: readStart, granularity: granularity, local: local) == settled)
    }

    /// The same size, and the modification time set back as it was: the change time still differs.
    @Test func aRewriteWithTheSameSizeAndModificationTimeIsSeen() throws {
        let config = try TemporaryConfiguration(jobs: ["a": Self.job])
        let path = config.path + "/jobs.d/a.job"
        var before = stat()
        #expect(stat(path, &before) == 0)
        let clock = Clock()
        clock.advance(seconds: 10)
        var cache = cache(clock)
        let directory = JobDirectory(path: config.path)
        _ = directory.read(using: &cache)

        // In place: the same inode, the same size, then the same modification time as before.
        let fd = open(path, O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        let written = Array(Self.other.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(written == Self.other.utf8.count)
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_size == before.st_size)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)

        let read = directory.read(using: &cache)
        #expect(cache.parsed == 1)
        #expect(read.jobs.first?.triggers == definitions(directory.read())["a"]?.triggers)
        #expect(read.jobs.first?.triggers == [.unitActive(.seconds(7_200))])
    }

    /// The cache walks its files by name: a file renamed (the same inode, the same times) is read
    /// under its new name, and the old name is forgotten.
    @Test func aRenamedFileIsReadUnderItsNewName() throws {
        let config = try TemporaryConfiguration(jobs: ["a": Self.job, "b": Self.other, "c": Self.job])
        var cache = cache(after: 10)
        let directory = JobDirectory(path: config.path)
        _ = directory.read(using: &cache)

        #expect(rename(config.path + "/jobs.d/b.job", config.path + "/jobs.d/e.job") == 0)
        let read = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed) == (2, 1))
        #expect(read.jobs.map(\.name) == ["a", "c", "e"])
        #expect(read.jobs.last?.triggers == [.unitActive(.seconds(7_200))])
        #expect(read.jobs.last?.path == config.path + "/jobs.d/e.job")
        _ = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed, cache.count) == (3, 0, 3))
    }

    /// A job file that is a link is judged by the file it points to, as it is read.
    @Test func aChangeToALinkedFileIsSeen() throws {
        let config = try TemporaryConfiguration()
        let target = config.path + "/a.target"
        try Self.job.write(toFile: target, atomically: false, encoding: .utf8)
        #expect(symlink(target, config.path + "/jobs.d/a.job") == 0)
        var cache = cache(after: 10)
        let directory = JobDirectory(path: config.path)
        _ = directory.read(using: &cache)
        _ = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed) == (1, 0))

        try Self.other.write(toFile: target, atomically: false, encoding: .utf8)
        let read = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed) == (0, 1))
        #expect(read.jobs.first?.triggers == [.unitActive(.seconds(7_200))])
    }

    /// The names in `jobs.d` are those of the read before while the directory is unchanged: a file
    /// created, removed or renamed in it changes its times.
    @Test func theJobsDirectoryIsListedAgainOnlyWhenItChanged() throws {
        let config = try TemporaryConfiguration(jobs: ["a": Self.job, "b": Self.job])
        var cache = cache(after: 10)
        let directory = JobDirectory(path: config.path)
        _ = directory.read(using: &cache)
        #expect(cache.listed)
        #expect(directory.read(using: &cache).jobs.map(\.name) == ["a", "b"])
        #expect(!cache.listed, "unchanged: the names of the read before")

        try config.write(job: "c", Self.job)
        #expect(directory.read(using: &cache).jobs.map(\.name) == ["a", "b", "c"])
        #expect(cache.listed)
        try config.remove(job: "a")
        #expect(directory.read(using: &cache).jobs.map(\.name) == ["b", "c"])
        #expect(cache.listed)
        _ = directory.read(using: &cache)
        #expect(!cache.listed)
    }

    @Test func brokenFilesAndFilesWithAccountsAreReadEveryTime() throws {
        let config = try TemporaryConfiguration(jobs: [
            "broken": "[Job]\nOnCalender=daily\nExecStart=/bin/true\n",
            "root": "[Job]\nOnUnitActiveSec=1h\nUser=root\nExecStart=/bin/true\n",
        ])
        let clock = Clock()
        clock.advance(seconds: 10)
        var cache = cache(clock)
        let directory = JobDirectory(path: config.path)
        _ = directory.read(using: &cache)
        let second = directory.read(using: &cache)
        #expect((cache.reused, cache.parsed) == (0, 2))
        #expect(second.broken.map(\.name) == ["broken"] && second.jobs.map(\.name) == ["root"])
    }
}

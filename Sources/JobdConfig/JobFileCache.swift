import Glibc

/// The job files of the previous read of a configuration directory, each parsed definition kept
/// with the identity and metadata its file had when it was read, so that a reload reads and parses
/// only the files that changed (``JobDirectory/read(using:)``).
///
/// A file is reused when its device, inode, size, modification and change times are all as they
/// were. That misses no change:
/// - Any write changes the modification time, and any change of the file's metadata (including
///   setting its modification time back with `touch -d`) changes its change time, which no program
///   can set; replacing the file (an editor's rename) changes its inode.
/// - A file's times have the file system's granularity (a clock tick, or 2 s on FAT), so a write
///   just after the read could leave every time as it was. A file whose modification or change
///   time is within ``racyWindowNanoseconds`` of the read is therefore not kept: it is read again
///   at the next reload, until it is older than that (as git treats "racily clean" files).
/// - Only files whose definition depends on their bytes alone are kept: a file with errors, or
///   with `User=`/`Group=` (whose accounts are looked up at load), is read every time.
///
/// Not thread-safe; the daemon's main loop owns one and passes it to every read.
package struct JobFileCache: Sendable {
    struct Stamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = status.st_mtim
            changed = status.st_ctim
        }

        static func == (a: Stamp, b: Stamp) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }

        /// The later of the modification and change times, in nanoseconds since the epoch.
        var latestNanoseconds: Int64 {
            max(Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec),
                Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec))
        }
    }

    struct Entry {
        var stamp: Stamp
        var definition: JobDefinition
    }

    /// How recent a file's times may be, before the read, for its definition to be kept: more than
    /// any file system's timestamp granularity (FAT's 2 s) and the lag of the kernel's coarse clock.
    package static let racyWindowNanoseconds: Int64 = 3_000_000_000

    /// The wall clock, in nanoseconds since the epoch; a test's own clock in tests.
    var now: @Sendable () -> Int64 = { JobFileCache.realtimeNanoseconds() }
    private var entries: [String: Entry] = [:]
    private var seen: Set<String> = []
    private var readStartNanoseconds: Int64 = 0
    /// Files the last read reused, and files it read and parsed.
    package private(set) var reused = 0
    package private(set) var parsed = 0

    package init() {}

    /// How many parsed files are kept.
    package var count: Int { entries.count }

    /// Starts a read of the whole directory.
    mutating func beginRead() {
        readStartNanoseconds = now()
        seen.removeAll(keepingCapacity: true)
        reused = 0
        parsed = 0
    }

    /// Ends the read: files it did not meet (deleted, renamed) are forgotten.
    mutating func endRead() {
        if seen.count != entries.count {
            entries = entries.filter { seen.contains($0.key) }
        }
    }

    /// What the cache has for a job file: its definition, when the file is unchanged since it was
    /// kept, or else what to remember of the file when it has been read (``store(_:_:result:)``).
    enum Lookup {
        case kept(JobDefinition)
        case read(Stamp?)
    }

    /// Looks `path` up, noting that this read saw it.
    mutating func lookup(_ path: String) -> Lookup {
        seen.insert(path)
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            entries[path] = nil
            return .read(nil)
        }
        let stamp = Stamp(status)
        if let entry = entries[path], entry.stamp == stamp {
            reused += 1
            return .kept(entry.definition)
        }
        return .read(stamp)
    }

    /// Remembers what reading `path` (whose stat was `stamp`) gave, when that is safe to reuse: a
    /// definition without an account to look up again, of a file not changed within the racy window.
    mutating func store(_ path: String, _ stamp: Stamp?, result: Result<JobDefinition, ConfigErrors>) {
        parsed += 1
        if let stamp, case .success(let definition) = result, definition.user == nil, definition.group == nil,
           stamp.latestNanoseconds < readStartNanoseconds - Self.racyWindowNanoseconds {
            entries[path] = Entry(stamp: stamp, definition: definition)
        } else {
            entries[path] = nil
        }
    }

    /// The definition of the job file at `path`: the kept one if the file is unchanged, else what
    /// `read` makes of it (kept for the next read when that is safe).
    mutating func definition(
        at path: String, read: () -> Result<JobDefinition, ConfigErrors>
    ) -> Result<JobDefinition, ConfigErrors> {
        switch lookup(path) {
        case .kept(let definition):
            return .success(definition)
        case .read(let stamp):
            let result = read()
            store(path, stamp, result: result)
            return result
        }
    }

    static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

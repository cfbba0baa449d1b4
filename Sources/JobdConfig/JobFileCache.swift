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
/// A reload costs one `fstatat` per file, relative to the open jobs directory, and a walk of the
/// kept files in name order beside the names read: no path is built and nothing is hashed for a
/// file that did not change (issue 19).
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

    /// A kept file: its name in the directory, its stamp when it was read, what it defined.
    struct Entry {
        var name: String
        var stamp: Stamp
        var definition: JobDefinition
    }

    /// How recent a file's times may be, before the read, for its definition to be kept: more than
    /// any file system's timestamp granularity (FAT's 2 s) and the lag of the kernel's coarse clock.
    package static let racyWindowNanoseconds: Int64 = 3_000_000_000

    /// The wall clock, in nanoseconds since the epoch; a test's own clock in tests.
    var now: @Sendable () -> Int64 = { JobFileCache.realtimeNanoseconds() }
    /// The directory the kept files are in, and the kept files in name order.
    private var directory = ""
    private var entries: [Entry] = []
    /// The read in progress: its start, and for each of its names the stamp (`nil`: not a regular
    /// file, or no status) and what the cache will keep of it.
    private var readStartNanoseconds: Int64 = 0
    private var names: [String] = []
    private var stamps: [Stamp?] = []
    private var next: [Entry?] = []
    /// Files the last read reused, and files it read and parsed.
    package private(set) var reused = 0
    package private(set) var parsed = 0

    package init() {}

    /// How many parsed files are kept.
    package var count: Int { entries.count }

    /// Starts a read of the files `names` (in name order, for the quickest walk) of `directory`:
    /// the kept definition of each file that is unchanged since it was kept, `nil` for each that is
    /// to be read (then ``store(_:result:)`` says what reading it gave). Ends with ``endRead()``.
    mutating func beginRead(_ names: [String], in directory: String) -> [JobDefinition?] {
        readStartNanoseconds = now()
        reused = 0
        parsed = 0
        if directory != self.directory {
            entries = []
            self.directory = directory
        }
        self.names = names
        stamps = Array(repeating: nil, count: names.count)
        next = Array(repeating: nil, count: names.count)
        var kept: [JobDefinition?] = Array(repeating: nil, count: names.count)
        var cursor = 0
        FileSystem.forEachStatus(of: names, in: directory) { index, status in
            guard let status, status.st_mode & S_IFMT == S_IFREG else { return }
            let stamp = Stamp(status)
            stamps[index] = stamp
            let name = names[index]
            // Names come in order, as the entries are kept: the match is at the cursor or after it.
            if cursor > 0, name < entries[cursor - 1].name { cursor = 0 }
            while cursor < entries.count, entries[cursor].name < name { cursor += 1 }
            guard cursor < entries.count, entries[cursor].name == name, entries[cursor].stamp == stamp else { return }
            kept[index] = entries[cursor].definition
            next[index] = entries[cursor]
            reused += 1
        }
        return kept
    }

    /// Remembers what reading the read's file number `index` gave, when that is safe to reuse: a
    /// definition without an account to look up again, of a file not changed within the racy window.
    mutating func store(_ index: Int, result: Result<JobDefinition, ConfigErrors>) {
        parsed += 1
        if let stamp = stamps[index], case .success(let definition) = result, definition.user == nil, definition.group == nil,
           stamp.latestNanoseconds < readStartNanoseconds - Self.racyWindowNanoseconds {
            next[index] = Entry(name: names[index], stamp: stamp, definition: definition)
        }
    }

    /// Ends the read: what it kept replaces what the previous one did, so files it did not meet
    /// (deleted, renamed) are forgotten.
    mutating func endRead() {
        entries = next.compactMap { $0 }
        names = []
        stamps = []
        next = []
    }

    static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

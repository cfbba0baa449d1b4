import Glibc
import JobdSystem
import JobdUnitFile
import JobdDefinition

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
///   just after the read could leave every time as it was. A file changed too recently before the
///   read is therefore not kept: it is read again at the next reload, until it is older than that
///   (as git treats "racily clean" files). How recent is too recent: ``isSettled(_:readStart:granularity:)``.
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
            max(Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec), changedNanoseconds)
        }

        /// The change time, in nanoseconds since the epoch.
        var changedNanoseconds: Int64 { Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec) }
    }

    /// A kept file: its name in the directory, its stamp when it was read, what it defined.
    struct Entry {
        var name: String
        var stamp: Stamp
        var definition: JobDefinition
    }

    /// How recent a file's times may be, before the read, for its definition to be kept when its
    /// change time is a whole second (a file system that may keep no finer times): more than any
    /// file system's timestamp granularity (FAT's 2 s) and the lag of the kernel's coarse clock.
    package static let racyWindowNanoseconds: Int64 = 3_000_000_000
    /// How far the kernel's coarse clock, which stamps file times, may lag the wall clock: a tick
    /// (10 ms at the lowest `HZ`), with a margin.
    static let clockLagNanoseconds: Int64 = 100_000_000
    /// Local file systems, whose times come from this machine's clock. Elsewhere (NFS, SMB, FUSE:
    /// the server's clock, maybe skewed) a file keeps the whole ``racyWindowNanoseconds``.
    static let localFileSystems: Set<String> = ["ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "f2fs", "overlay", "zfs", "bcachefs"]

    /// The wall clock, in nanoseconds since the epoch; a test's own clock in tests.
    var now: @Sendable () -> Int64 = { JobFileCache.realtimeNanoseconds() }
    /// The directory the kept files are in, and the kept files in name order.
    private var directory = ""
    private var entries: [Entry] = []
    /// The directory's job file names at a read, with the directory's stamp then: its names are
    /// the same while its stamp is (creating, removing or renaming a file in it changes its
    /// modification and change times), as a file's contents are.
    private var listing: (stamp: Stamp, names: [String])?
    /// The read in progress: its start, its names, their stamps (`nil`: not a regular file, or no
    /// status), the kept entry each name matched (or -1), and what reading the others gave.
    private var readStartNanoseconds: Int64 = 0
    private var names: [String] = []
    private var stamps: [Stamp?] = []
    private var matched: [Int] = []
    /// By the read's file number: a dictionary here cost 50 ms at 100,000 new files (issue 19).
    private var stored: [Entry?] = []
    private var storedCount = 0
    /// A bound on each device's timestamp granularity, from the change times of the files the read
    /// is to read (``isSettled(_:readStart:granularity:)``).
    private var granularities: [UInt64: Int64] = [:]
    /// Whether each device the read met holds a local file system (``localFileSystems``).
    private var localDevices: [UInt64: Bool] = [:]
    /// Files the last read reused, and files it read and parsed.
    package private(set) var reused = 0
    package private(set) var parsed = 0
    /// Whether the last read listed the directory (rather than reuse the names of the one before).
    private(set) var listed = false

    package init() {}

    /// How many parsed files are kept.
    package var count: Int { entries.count }

    /// Starts a read of the job files in `directory`: their names (from `listing`, unless the
    /// directory is unchanged since the names were kept), and for each the kept definition if the
    /// file is unchanged since it was kept, or `nil` if it is to be read (then
    /// ``store(_:result:)`` says what reading it gave). Ends with ``endRead()``.
    mutating func beginRead(
        in directory: String, listing list: () -> Result<[String], ConfigError>
    ) -> Result<(names: [String], kept: [JobDefinition?]), ConfigError> {
        readStartNanoseconds = now()
        reused = 0
        parsed = 0
        if directory != self.directory {
            entries = []
            listing = nil
            self.directory = directory
        }
        let stamp = FileSystem.status(directory).map(Stamp.init)
        if let stamp, let listing, listing.stamp == stamp {
            names = listing.names
            listed = false
        } else {
            switch list() {
            case .failure(let error):
                listing = nil
                return .failure(error)
            case .success(let found):
                names = found
                listed = true
                listing = stamp.flatMap { isSettled($0) ? ($0, found) : nil }
            }
        }
        stamps = FileSystem.statuses(of: names, in: directory) { $0.st_mode & S_IFMT == S_IFREG ? Stamp($0) : nil }
        // Names come in name order, as the entries are kept: each match is at or after the last.
        let entries = self.entries
        var kept: [JobDefinition?] = Array(repeating: nil, count: names.count)
        matched = Array(repeating: -1, count: names.count)
        stored = Array(repeating: nil, count: names.count)
        storedCount = 0
        var cursor = 0
        for (index, name) in names.enumerated() {
            guard let stamp = stamps[index] else { continue }
            if cursor > 0, name < entries[cursor - 1].name { cursor = 0 }
            while cursor < entries.count, entries[cursor].name < name { cursor += 1 }
            guard cursor < entries.count, entries[cursor].name == name, entries[cursor].stamp == stamp else { continue }
            kept[index] = entries[cursor].definition
            matched[index] = cursor
            reused += 1
        }
        granularities = [:]
        for index in names.indices where kept[index] == nil {
            guard let stamp = stamps[index], stamp.changed.tv_nsec != 0 else { continue }
            granularities[stamp.device] = Self.gcd(granularities[stamp.device] ?? 0, Int64(stamp.changed.tv_nsec))
        }
        return .success((names, kept))
    }

    private mutating func isSettled(_ stamp: Stamp) -> Bool {
        let local = localDevices[stamp.device] ?? {
            let local = FileSystem.fileSystemType(device: stamp.device).map(Self.localFileSystems.contains) ?? false
            localDevices[stamp.device] = local
            return local
        }()
        return Self.isSettled(stamp, readStart: readStartNanoseconds, granularity: granularities[stamp.device], local: local)
    }

    /// Whether a file (or directory) with `stamp`, looked at after `readStart`, can be trusted to
    /// show any later change by a change time different from `stamp`'s.
    ///
    /// Every change of a file sets its change time to the kernel's coarse clock (at most
    /// ``clockLagNanoseconds`` behind the wall clock), cut down to a multiple of the file system's
    /// granularity G. A change after `readStart` therefore gets a change time later than
    /// `readStart - lag - G`, and differs from any change time up to that. G divides the nanoseconds
    /// of every change time on the device, so it is at most their greatest common divisor
    /// (`granularity`, from the files the read reads, or else the file's own nanoseconds). A change
    /// time of a whole second says nothing of G (a file system may keep seconds only, or 2 s on
    /// FAT), and a file system that is not `local` has another clock: then the file's times must be
    /// older than ``racyWindowNanoseconds``, as before.
    static func isSettled(_ stamp: Stamp, readStart: Int64, granularity: Int64?, local: Bool) -> Bool {
        let nanoseconds = Int64(stamp.changed.tv_nsec)
        guard local, nanoseconds != 0 else { return stamp.latestNanoseconds < readStart - racyWindowNanoseconds }
        return stamp.changedNanoseconds < readStart - clockLagNanoseconds - (granularity ?? nanoseconds)
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        b == 0 ? a : gcd(b, a % b)
    }

    /// The stamp of the read's file number `index` as the read began (`nil`: not a regular file, or no status).
    func stamp(of index: Int) -> Stamp? { stamps[index] }

    /// Remembers what reading the read's file number `index` gave, when that is safe to reuse: a
    /// definition without an account to look up again, of a file not changed within the racy window.
    /// It is kept by `status`, the status of the file its text came from (`fstat` on it when it
    /// was read; `nil`: the read's own stamp of it): a file replaced after the read's `stat` of it
    /// is kept as the file that was read, never as the one it replaced.
    mutating func store(_ index: Int, result: Result<JobDefinition, ConfigErrors>, status: stat? = nil) {
        parsed += 1
        if let stamp = status.map(Stamp.init) ?? stamps[index], case .success(let definition) = result, definition.user == nil,
           definition.group == nil, isSettled(stamp) {
            stored[index] = Entry(name: names[index], stamp: stamp, definition: definition)
            storedCount += 1
        }
    }

    /// Ends the read: what it kept replaces what the previous one did, so files it did not meet
    /// (deleted, renamed) are forgotten. A read that kept every entry and added none leaves them be.
    mutating func endRead() {
        if !(storedCount == 0 && reused == entries.count && reused == names.count) {
            var next: [Entry] = []
            next.reserveCapacity(reused + storedCount)
            for index in names.indices {
                if matched[index] >= 0 {
                    next.append(entries[matched[index]])
                } else if let entry = stored[index] {
                    next.append(entry)
                }
            }
            entries = next
        }
        names = []
        stamps = []
        matched = []
        stored = []
        storedCount = 0
        granularities = [:]
        localDevices = [:]
    }

    static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

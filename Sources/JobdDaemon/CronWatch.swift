import Glibc
import JobdConfig
import JobdImport
import JobdLocks
import JobdHost
import JobdTimers

/// Hears cron's files change (cron mode), on a thread of its own: inotify on `/etc` (for
/// `crontab`), `/etc/cron.d` and the spool, and, as cron itself does, a look at their times
/// once a minute, for a directory that was missing when the watch began, a file system without
/// inotify, or a queue that overflowed. A change calls back with what changed once the files are
/// quiet (``CronChangeDebounce``: one write, one reload); the main loop reloads, as for a SIGHUP. ``stop()`` ends the thread and closes its descriptors.
final class CronWatch: Sendable {
    private let thread: InotifyThread

    /// `since`: the files' fingerprint (``fingerprint(of:)``) taken before jobd first read them, so
    /// that a change between that read and the watch's start is heard at the start, not lost.
    init?(sources: CronSources, since: [String], onChange: @escaping @Sendable (String) -> Void) {
        guard let thread = InotifyThread() else { return nil }
        self.thread = thread
        let context = Context(thread: thread, sources: sources, fingerprint: since, onChange: onChange)
        if !thread.start({ context.run() }) { return nil }
    }

    /// Ends the watching thread; it closes the descriptors on its way out.
    func stop() {
        thread.stop()
    }

    /// What cron's per-minute look compares: each file's name, inode, size, times and mode.
    static func fingerprint(of sources: CronSources) -> [String] {
        var paths = [sources.crontab]
        for directory in [sources.cronDirectory, sources.spoolDirectory] {
            paths.append(directory)
            if case .success(let names) = FileSystem.directoryEntries(directory) { paths += names.sorted().map { directory + "/" + $0 } }
        }
        return paths.map { path in
            var status = stat()
            guard lstat(path, &status) == 0 else { return path + " -" }
            return "\(path) \(status.st_ino) \(status.st_size) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec) "
                + "\(status.st_ctim.tv_sec).\(status.st_ctim.tv_nsec) \(status.st_mode) \(status.st_uid)"
        }
    }

    private final class Context: @unchecked Sendable {
        // Only the watching thread touches `watches` and `fingerprint`.
        let thread: InotifyThread
        let sources: CronSources
        let onChange: @Sendable (String) -> Void
        private var watches: [Int32: String] = [:]
        private var fingerprint: [String] = []

        init(thread: InotifyThread, sources: CronSources, fingerprint: [String], onChange: @escaping @Sendable (String) -> Void) {
            self.thread = thread
            self.sources = sources
            self.fingerprint = fingerprint
            self.onChange = onChange
        }

        /// The directories watched, and whether an event's name there is one of cron's files: an
        /// editor's or a package's temporary file (`x.dpkg-new`, crontab(1)'s `tmp.*`) reloads
        /// nothing until it is renamed into place.
        private var directories: [(path: String, counts: (String) -> Bool)] {
            let crontab = String(sources.crontab.split(separator: "/").last ?? "crontab")
            return [(String(sources.crontab.dropLast(crontab.count + 1)), { $0 == crontab }),
                    (sources.cronDirectory, CronSourceFile.countsInCronDirectory),
                    (sources.spoolDirectory, CronSourceFile.countsInSpool)]
        }

        private func addWatches() {
            let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF)
            for directory in directories where !watches.values.contains(directory.path) {
                let descriptor = inotify_add_watch(thread.fd, directory.path, mask)
                if descriptor >= 0 { watches[descriptor] = directory.path }
            }
        }

        private func currentFingerprint() -> [String] { CronWatch.fingerprint(of: sources) }

        /// Milliseconds to the next minute's turn, and a little after, as cron wakes.
        private static func untilNextMinute() -> Int32 {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let intoMinute = Int(now.tv_sec % 60) * 1_000 + Int(now.tv_nsec / 1_000_000)
            return Int32(60_000 - intoMinute + 100)
        }

        func run() {
            addWatches()
            // Anything changed since jobd read the files and before the watches began: heard now.
            let now = currentFingerprint()
            if now != fingerprint {
                fingerprint = now
                onChange("a change while jobd started")
            }
            var debounce = CronChangeDebounce()
            while true {
                switch thread.wait(timeout: Self.timeout(debounce)) {
                case .stopped:
                    return
                case .timedOut where debounce.isPending:
                    break
                case .timedOut:
                    addWatches()
                    let now = currentFingerprint()
                    if now != fingerprint {
                        fingerprint = now
                        onChange("the per-minute check")
                    }
                case .events(let events):
                    debounce.heard(changedPaths(events), at: .now())
                }
                // One reload for one write, however many events and reads it took.
                if let changed = debounce.due(at: .now()) {
                    fingerprint = currentFingerprint()
                    onChange(changed)
                }
            }
        }

        /// Milliseconds to wait: to the waiting changes' deadline, else to the per-minute look.
        private static func timeout(_ debounce: CronChangeDebounce) -> Int32 {
            guard let deadline = debounce.deadline else { return untilNextMinute() }
            let now = MonotonicInstant.now()
            guard deadline > now else { return 0 }
            return Int32(min((deadline.nanoseconds - now.nanoseconds + 999_999) / 1_000_000, 60_000))
        }

        /// The paths of cron's files `events` are about.
        private func changedPaths(_ events: [InotifyThread.Event]) -> [String] {
            var changed: [String] = []
            let directories = self.directories
            for event in events {
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { changed.append("an overflowing queue of changes") }
                guard let directory = watches[event.watch] else { continue }
                // A directory removed: watched again by the per-minute look once it is back.
                if event.mask & UInt32(IN_IGNORED) != 0 { watches[event.watch] = nil }
                guard let counts = directories.first(where: { $0.path == directory })?.counts else { continue }
                if event.name.isEmpty || counts(event.name) { changed.append(event.name.isEmpty ? directory : directory + "/" + event.name) }
            }
            return changed
        }
    }
}

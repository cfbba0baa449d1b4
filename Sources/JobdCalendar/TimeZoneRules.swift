#if canImport(Glibc)
import Glibc
#endif
import JobdLocks
import SystemPackage

/// The rules of one time zone, read from a TZif file (RFC 8536) or a POSIX TZ string.
///
/// Offsets before the last transition come from the file's 64-bit data; later instants follow the
/// POSIX TZ footer rule, as glibc does. Leap-second records (the `right/` zones) are ignored.
///
/// Loaded zones are cached process-wide, so repeated ``load(named:)`` calls are cheap.
package struct TimeZoneRules: Sendable, Hashable {
    /// The zone's name, such as `Europe/Berlin`, `UTC`, or the POSIX TZ string it was read from.
    package let identifier: String
    let data: ZoneData

    init(identifier: String, data: ZoneData) {
        self.identifier = identifier
        self.data = data
    }

    /// Coordinated Universal Time: offset zero, abbreviation `UTC`, no daylight saving.
    package static let utc = TimeZoneRules(identifier: "UTC", data: ZoneData(fixedOffset: 0, abbreviation: "UTC"))

    /// The directory holding the tzdata database.
    package static let zoneInfoDirectory = "/usr/share/zoneinfo"

    /// Loads (or returns the cached) zone named like a tzdata entry, e.g. `Europe/Berlin`.
    ///
    /// An absolute path names a TZif file directly. `UTC` always loads, even without tzdata installed.
    /// A cached zone is used until ``revalidateCache()``; after it, the file is looked at again
    /// (once) and read again if it is another file than the one read (a tzdata upgrade).
    package static func load(named name: String) throws(CalendarError) -> TimeZoneRules {
        let epoch = cacheEpoch.withLock { $0 }
        if let cached = cache.withLock({ $0[name] }) {
            if cached.epoch == epoch { return cached.rules }
            if cached.identity == FileIdentity(path: path(of: name)) {
                cache.withLock { $0[name]?.epoch = epoch }
                return cached.rules
            }
        }
        let identity = FileIdentity(path: path(of: name))
        let rules = try readZone(named: name)
        cache.withLock { $0[name] = CachedZone(rules: rules, identity: identity, epoch: epoch) }
        return rules
    }

    /// Makes the next ``load(named:)`` of each zone check whether its file changed (by device,
    /// inode, size and modification time) and read it again if so. jobd calls it as it reads its
    /// configuration, at start and at each reload, so a tzdata upgrade takes effect at a reload.
    package static func revalidateCache() {
        cacheEpoch.withLock { $0 += 1 }
    }

    /// The zone a process with this environment runs in, with glibc's reading of `TZ`.
    ///
    /// `TZ` unset reads `/etc/localtime`; `TZ=` (empty) is UTC; `TZ=:Europe/Berlin` and
    /// `TZ=Europe/Berlin` read the tzdata file; anything else is tried as a POSIX TZ string such as
    /// `CET-1CEST,M3.5.0,M10.5.0/3`. Anything unreadable falls back to UTC, as glibc does.
    /// - Parameter environment: the environment to consult; `nil` reads this process's environment.
    package static func current(environment: [String: String]? = nil) -> TimeZoneRules {
        let tz: String?
        if let environment {
            tz = environment["TZ"]
        } else if let value = getenv("TZ") {
            tz = String(cString: value)
        } else {
            tz = nil
        }
        guard var spec = tz else {
            return localTime()
        }
        if spec.isEmpty {
            return .utc
        }
        if spec.hasPrefix(":") {
            spec.removeFirst()
            if spec.isEmpty {
                return localTime()
            }
        }
        if let rules = try? load(named: spec) {
            return rules
        }
        if let rule = PosixTimeZoneRule(parsing: spec) {
            return TimeZoneRules(identifier: spec, data: ZoneData(posixRule: rule))
        }
        return .utc
    }

    /// The offset from UTC, in seconds east, in effect at `instant`.
    package func offset(at instant: RealtimeInstant) -> Int {
        Int(data.offset(atSeconds: instant.seconds))
    }

    /// The local time type (offset, daylight saving flag, abbreviation) in effect at `instant`.
    package func localTimeType(at instant: RealtimeInstant) -> LocalTimeType {
        data.localTimeType(atSeconds: instant.seconds)
    }

    /// The abbreviation shown for `instant`, such as `CET`, `CEST` or `+1030`.
    package func abbreviation(at instant: RealtimeInstant) -> String {
        data.localTimeType(atSeconds: instant.seconds).abbreviation
    }

    /// The first instant after `instant` at which the local time type changes, if any.
    package func nextTransition(after instant: RealtimeInstant) -> RealtimeInstant? {
        data.nextTransition(afterSeconds: instant.seconds).map { RealtimeInstant(seconds: $0) }
    }

    /// Whether glibc considers this zone UTC (`timezone == 0 && daylight == 0`), in which case
    /// `systemd-analyze` prints no `(in UTC):` lines.
    package var isUniversal: Bool { data.isUniversal }

    package static func == (lhs: TimeZoneRules, rhs: TimeZoneRules) -> Bool {
        lhs.identifier == rhs.identifier && (lhs.data === rhs.data || lhs.data.isEquivalent(to: rhs.data))
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }

    // MARK: Loading

    /// A loaded zone and the file it was read from.
    private struct CachedZone {
        var rules: TimeZoneRules
        var identity: FileIdentity?
        /// The ``cacheEpoch`` at which the file was last looked at.
        var epoch: UInt64
    }

    /// Which file a zone was read from: a file replaced by a package upgrade differs in inode, one
    /// rewritten in place in size or modification time.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64

        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        }
    }

    private static let cache = LockedBox<[String: CachedZone]>([:])
    private static let cacheEpoch = LockedBox<UInt64>(0)

    private static func path(of name: String) -> String {
        name.hasPrefix("/") ? name : zoneInfoDirectory + "/" + name
    }

    private static func localTime() -> TimeZoneRules {
        let path = "/etc/localtime"
        var identifier = "localtime"
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(path, &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let range = target.firstRange(ofText: "zoneinfo/") {
                identifier = String(target[range.upperBound...])
            }
        }
        if let bytes = readWholeFile(path), let data = try? ZoneData(tzif: bytes, source: path) {
            return TimeZoneRules(identifier: identifier, data: data)
        }
        return .utc
    }

    private static func readZone(named name: String) throws(CalendarError) -> TimeZoneRules {
        let path: String
        if name.hasPrefix("/") {
            path = name
        } else {
            guard !name.isEmpty, !name.split(separator: "/").contains("..") else {
                throw CalendarError(code: .unknownTimeZone, input: name, expected: "a tzdata zone name such as Europe/Berlin")
            }
            path = zoneInfoDirectory + "/" + name
        }
        guard let bytes = readWholeFile(path) else {
            if name == "UTC" {
                return .utc
            }
            throw CalendarError(code: .unknownTimeZone, input: name, expected: "a readable TZif file at \(path)")
        }
        return TimeZoneRules(identifier: name, data: try ZoneData(tzif: bytes, source: name))
    }

    /// Whether `path` exists, is a regular file and starts with the TZif magic.
    static func isTZifFile(atPath path: String) -> Bool {
        let fd = openForReading(path)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return false }
        var magic = [UInt8](repeating: 0, count: 4)
        guard read(fd, &magic, 4) == 4 else { return false }
        return magic == Array("TZif".utf8)
    }

    /// The largest zone file read: tzdata's biggest are under 4 KiB; anything near this is not a zone.
    static let maximumZoneFileSize = 1 << 20

    /// Opens `path` without blocking: a FIFO or device named as a zone (or planted as
    /// `/etc/localtime`) is then refused by the `fstat` that follows instead of hanging the open.
    /// `O_NONBLOCK` changes nothing for the regular files that are read.
    private static func openForReading(_ path: String) -> Int32 {
        open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    }

    private static func readWholeFile(_ path: String) -> [UInt8]? {
        let fd = openForReading(path)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size <= maximumZoneFileSize else { return nil }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            guard let count = try? chunk.withUnsafeMutableBytes({ try FileDescriptor(rawValue: fd).read(into: $0) }) else { return nil }
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
            // A file that grows while it is read is still bounded.
            guard result.count <= maximumZoneFileSize else { return nil }
        }
        return result
    }
}

import Glibc

/// The cgroup files jobd reads, parsed: pure, so that tests need no cgroup.
enum CgroupText {
    /// jobd's cgroup v2 path (`/system.slice/jobd.service`) from `/proc/self/cgroup`, or a
    /// process's from its `/proc/PID/cgroup` (as ``RunCgroup/path`` names a run's): the `0::PATH`
    /// line, which a unified or hybrid hierarchy has and a legacy-only one does not.
    static func unifiedPath(procSelfCgroup text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            let path = String(line.dropFirst(3))
            return path.hasPrefix("/") ? path : nil
        }
        return nil
    }

    /// Where the cgroup v2 file system is mounted, from `/proc/self/mountinfo`: `/sys/fs/cgroup` on
    /// a unified system, `/sys/fs/cgroup/unified` on a hybrid one. Only a mount of the hierarchy's
    /// root counts (field 4 is `/`), so that the path of a cgroup can be appended to it.
    static func cgroup2Mount(mountinfo text: String) -> String? {
        for line in text.split(separator: "\n") {
            // ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
            let fields = line.split(separator: " ")
            guard let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count, fields.count > 4,
                  fields[separator + 1] == "cgroup2", fields[3] == "/" else { continue }
            return unescapeMountPath(String(fields[4]))
        }
        return nil
    }

    /// jobd's path in the cgroup v1 hierarchy of `controller` (`8:pids:/system.slice/jobd.service`),
    /// on a legacy or hybrid system where that controller is not on the unified hierarchy.
    static func legacyPath(procSelfCgroup text: String, controller: String) -> String? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[1].split(separator: ",").contains(Substring(controller)), fields[2].hasPrefix("/") else { continue }
            return String(fields[2])
        }
        return nil
    }

    /// Where the cgroup v1 hierarchy of `controller` is mounted (`/sys/fs/cgroup/pids`): a mount of
    /// the hierarchy's root whose super options name the controller.
    static func legacyMount(mountinfo text: String, controller: String) -> String? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let separator = fields.firstIndex(of: "-"), separator + 3 < fields.count, fields.count > 4,
                  fields[separator + 1] == "cgroup", fields[3] == "/",
                  fields[separator + 3].split(separator: ",").contains(Substring(controller)) else { continue }
            return unescapeMountPath(String(fields[4]))
        }
        return nil
    }

    /// `pids.max`: a number, or `nil` for `max` (no limit).
    static func pidsMax(_ text: String) -> UInt64? {
        UInt64(text.trimmingWhitespace)
    }

    /// mountinfo writes space, tab, newline and backslash in paths as octal escapes (`\040`).
    private static func unescapeMountPath(_ path: String) -> String {
        guard path.contains("\\") else { return path }
        var bytes: [UInt8] = []
        var utf8 = Array(path.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3, let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `cgroup.events` says the cgroup (or one below it) still has a process: `populated 1`.
    static func populated(events text: String) -> Bool? {
        value(of: "populated", in: text).map { $0 != 0 }
    }

    /// `oom_kill` of `memory.events` (v2) or `memory.oom_control` (v1): processes the OOM killer killed.
    static func oomKills(events text: String) -> UInt64? {
        value(of: "oom_kill", in: text)
    }

    /// The CPU time of `cpu.stat` (its first three lines exist without the cpu controller).
    static func cpuUsage(cpuStat text: String) -> (total: UInt64, user: UInt64, system: UInt64)? {
        // One pass: read at each run's end.
        var total, user, system: UInt64?
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            let number = UInt64(line[line.index(after: space)...])
            switch line[..<space] {
            case "usage_usec": total = number
            case "user_usec": user = number
            case "system_usec": system = number
            default: continue
            }
        }
        guard let total, let user, let system else { return nil }
        return (total, user, system)
    }

    /// A file holding one number, such as `memory.peak`.
    static func number(_ text: String) -> UInt64? {
        UInt64(text.trimmingWhitespace)
    }

    /// The pids of `cgroup.procs`, one per line.
    static func pids(procs text: String) -> [pid_t] {
        text.split(separator: "\n").compactMap { pid_t($0) }
    }

    /// The controllers `cgroup.controllers` lists, space-separated.
    static func controllers(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }

    /// The number after `key ` in a flat-keyed file (`key value` per line).
    private static func value(of key: String, in text: String) -> UInt64? {
        for line in text.split(separator: "\n") where line.hasPrefix(key) && line.dropFirst(key.count).first == " " {
            return UInt64(line.dropFirst(key.count + 1))
        }
        return nil
    }
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        let isSpace = { (character: Character) in character == " " || character == "\n" || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}

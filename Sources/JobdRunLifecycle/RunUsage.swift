import JobdLogging

/// What a run used, from its cgroup once its processes are gone: CPU time (`cpu.stat`) and peak
/// memory (`memory.peak`, which needs the memory controller and kernel 5.19). Logged on `run.exit`
/// as systemd logs a service's.
package struct RunUsage: Sendable, Equatable {
    package var cpuUSec: UInt64
    package var userUSec: UInt64
    package var systemUSec: UInt64
    /// Bytes; nil where the cgroup has no `memory.peak`.
    package var memoryPeak: UInt64?

    package init(cpuUSec: UInt64, userUSec: UInt64, systemUSec: UInt64, memoryPeak: UInt64?) {
        self.cpuUSec = cpuUSec
        self.userUSec = userUSec
        self.systemUSec = systemUSec
        self.memoryPeak = memoryPeak
    }

    /// `JOBD_CPU_USEC=`, `JOBD_CPU_USER_USEC=`, `JOBD_CPU_SYSTEM_USEC=` and `JOBD_MEMORY_PEAK=`.
    package var fields: [String: String] {
        var fields = [
            JobdField.cpuUSec: String(cpuUSec), JobdField.cpuUserUSec: String(userUSec),
            JobdField.cpuSystemUSec: String(systemUSec),
        ]
        if let memoryPeak { fields[JobdField.memoryPeak] = String(memoryPeak) }
        return fields
    }

    /// In systemd's words: `Consumed 1.234s CPU time, 12.3M memory peak`.
    package var summary: String {
        "Consumed \(Self.cpuTime(cpuUSec)) CPU time" + (memoryPeak.map { ", \(Self.bytes($0)) memory peak" } ?? "")
    }

    /// A CPU time as systemd prints it, to the millisecond: `0`, `45ms`, `1.234s`, `2min 3.5s`, `1h 2min 3s`.
    package static func cpuTime(_ microseconds: UInt64) -> String {
        let milliseconds = microseconds / 1_000
        guard milliseconds >= 1_000 else { return milliseconds == 0 ? "0" : "\(milliseconds)ms" }
        var parts: [String] = []
        let hours = milliseconds / 3_600_000, minutes = milliseconds / 60_000 % 60
        if hours > 0 { parts.append("\(hours)h") }
        if minutes > 0 { parts.append("\(minutes)min") }
        let seconds = milliseconds / 1_000 % 60, fraction = milliseconds % 1_000
        if fraction > 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            parts.append("\(seconds).\(digits)s")
        } else if seconds > 0 {
            parts.append("\(seconds)s")
        }
        return parts.joined(separator: " ")
    }

    /// A size as systemd prints it, in powers of 1024 with one decimal: `512B`, `12.3M`, `1.0G`.
    package static func bytes(_ count: UInt64) -> String {
        let units: [(String, UInt64)] = [("E", 1 << 60), ("P", 1 << 50), ("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)]
        for (suffix, factor) in units where count >= factor {
            let tenths = count % factor / (factor / 10)
            return "\(count / factor).\(min(tenths, 9))\(suffix)"
        }
        return "\(count)B"
    }
}

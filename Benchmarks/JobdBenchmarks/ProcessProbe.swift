import Foundation
import CMallocInfo
import Glibc

/// What the kernel and the allocator say about a process: from `/proc/PID`, and `mallinfo2` for
/// this process's own heap.
struct ProcessProbe {
    let pid: Int32

    static let current = ProcessProbe(pid: getpid())

    /// `VmRSS` and `VmHWM` (peak RSS) in bytes, from `/proc/PID/status`.
    var residentBytes: (rss: Int, peak: Int) {
        let status = read("status")
        return (Self.number(status, "VmRSS:") * 1_024, Self.number(status, "VmHWM:") * 1_024)
    }

    /// `RssAnon` and `RssFile` (pages of mapped files: code and libraries) in bytes: what grows when
    /// the process allocates, and what grows when it first runs code it had not run yet.
    var residentKinds: (anonymous: Int, file: Int) {
        let status = read("status")
        return (Self.number(status, "RssAnon:") * 1_024, Self.number(status, "RssFile:") * 1_024)
    }

    /// User plus system CPU time, in nanoseconds, from fields 14 and 15 of `/proc/PID/stat`.
    var cpuNanoseconds: Int64 {
        let stat = read("stat")
        // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
        guard let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return 0 }
        let ticks = Int64(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) * 1_000_000_000 / ticks
    }

    /// Context switches (wake-ups and preemptions) of each thread, by thread id.
    var contextSwitchesByThread: [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var switches: [String: Int] = [:]
        for task in tasks {
            let status = read("task/\(task)/status")
            switches[task] = Self.number(status, "voluntary_ctxt_switches:") + Self.number(status, "nonvoluntary_ctxt_switches:")
        }
        return switches
    }

    /// Context switches since `earlier` (a ``contextSwitchesByThread`` reading), over the threads
    /// alive now; a thread that ended in between is not counted.
    func contextSwitches(since earlier: [String: Int]) -> Int {
        contextSwitchesByThread.reduce(0) { sum, thread in sum + thread.value - (earlier[thread.key] ?? 0) }
    }

    /// Bytes this process has allocated and not freed (malloc arenas plus mmapped blocks).
    static var heapInUse: Int {
        let info = mallinfo2()
        return Int(info.uordblks + info.hblkhd)
    }

    private func read(_ file: String) -> String {
        (try? String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8)) ?? ""
    }

    private static func number(_ status: String, _ key: String) -> Int {
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            return Int(line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        return 0
    }
}

import Glibc
import JobdConfig

#if canImport(System)
import System
#else
import SystemPackage
#endif

extension RunTermination {
    /// How a process killed by `signal` ended. swift-subprocess reports a core dump (`CLD_DUMPED`)
    /// as a plain signal, so this applies the kernel's own conditions for writing one: a signal
    /// whose default action dumps core, and a core size limit above zero or a `core_pattern` that
    /// pipes to a handler (which the limit does not stop). It says `killed` for a dump that failed
    /// to be written.
    /// `coreLimit`: the run's own soft `RLIMIT_CORE` where it has one (`LimitCORE=`), else jobd's,
    /// which the run inherited.
    static func signaled(_ signal: Int32, coreLimit: UInt64? = nil) -> RunTermination {
        let dumpsCore: Set<Int32> = [SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS, SIGXCPU, SIGXFSZ]
        guard dumpsCore.contains(signal) else { return .killed(signal: signal) }
        var limit = rlimit()
        let limited = coreLimit.map { $0 == 0 } ?? (getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0 && limit.rlim_cur == 0)
        guard limited else { return .dumped(signal: signal) }
        let pattern = (try? String(contentsOfProcFile: "/proc/sys/kernel/core_pattern")) ?? ""
        return pattern.hasPrefix("|") ? .dumped(signal: signal) : .killed(signal: signal)
    }
}

extension String {
    /// A small file from /proc, read with one read(2).
    init(contentsOfProcFile path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw Errno(rawValue: errno) }
        self = String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}

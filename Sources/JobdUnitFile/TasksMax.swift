import Glibc

/// A limit on how many tasks (processes and threads) may live in a cgroup, read as systemd 252
/// reads `TasksMax=` (systemd.resource-control(5)): a number, a percentage of the system's maximum
/// (`15%`, `12.5%`, `125‰`, `1250‱`), or `infinity`. jobd writes it to the cgroup's `pids.max`.
package enum TasksMax: Sendable, Hashable, CustomStringConvertible {
    case count(UInt64)
    /// A share of ``systemMaximum()``, in ten-thousandths (`15%` is 1500).
    case permyriad(UInt32)
    case infinity

    /// systemd's default for a service (`DefaultTasksMax=` in systemd-system.conf(5)).
    package static let systemdDefault = TasksMax.permyriad(1_500)

    /// Reads `text`; `nil` when it is none of the forms above. `0` and `0%` are refused, as systemd
    /// refuses them: a cgroup that can hold no task could never start its run.
    package static func parse(_ text: String) -> TasksMax? {
        if text == "infinity" { return .infinity }
        if let count = UInt64(text), count > 0, text.utf8.allSatisfy({ $0.isASCIIDigit }) { return .count(count) }
        guard let share = Permyriad.parse(text), share > 0, share <= 10_000 else { return nil }
        return .permyriad(UInt32(share))
    }

    /// The number of tasks, or `nil` for no limit (`pids.max`'s `max`).
    package func resolved(systemMaximum: UInt64) -> UInt64? {
        switch self {
        case .count(let count): count
        case .permyriad(let share): max(1, systemMaximum * UInt64(share) / 10_000)
        case .infinity: nil
        }
    }

    /// As systemd's `systemd-analyze` and `systemctl show` would read it back.
    package var description: String {
        switch self {
        case .count(let count): String(count)
        case .permyriad(let share):
            switch share % 100 {
            case 0: "\(share / 100)%"
            case let hundredths where hundredths % 10 == 0: "\(share / 100).\(hundredths / 10)%"
            case let hundredths: "\(share / 100).\(hundredths < 10 ? "0" : "")\(hundredths)%"
            }
        case .infinity: "infinity"
        }
    }

    /// The most tasks this system can have, as systemd counts it for a percentage: the least of
    /// `kernel.threads-max` and `kernel.pid_max` minus one (pid 0 is never given out), and at most
    /// 4194303, the kernel's largest `pid_max`.
    package static func systemMaximum(threadsMax: UInt64?, pidMax: UInt64?) -> UInt64 {
        var maximum: UInt64 = 4_194_303
        if let threadsMax, threadsMax > 0 { maximum = min(maximum, threadsMax) }
        if let pidMax, pidMax > 1 { maximum = min(maximum, pidMax - 1) }
        return maximum
    }

    /// ``systemMaximum(threadsMax:pidMax:)`` of this machine, from `/proc/sys/kernel`.
    package static func currentSystemMaximum() -> UInt64 {
        func read(_ name: String) -> UInt64? {
            let fd = open("/proc/sys/kernel/" + name, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            // A sysctl file gives its value to the first read alone: a read at an offset gets
            // nothing, so one read into a buffer large enough for any number.
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            return String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first.flatMap { UInt64($0) }
        }
        return systemMaximum(threadsMax: read("threads-max"), pidMax: read("pid_max"))
    }

    /// Whether this limit holds at most as many tasks as `bound` on a system of `systemMaximum`.
    package func isAtMost(_ bound: TasksMax, systemMaximum: UInt64) -> Bool {
        guard let bound = bound.resolved(systemMaximum: systemMaximum) else { return true }
        guard let limit = resolved(systemMaximum: systemMaximum) else { return false }
        return limit <= bound
    }

    /// What to write to `pids.max`: a number, or `max`.
    package static func pidsMaxText(_ limit: UInt64?) -> String { limit.map(String.init) ?? "max" }

    /// The hint of an error about a value that is not a task limit.
    package static let hint = "write a number of tasks such as 512, a share of the system's maximum such as 15%, or infinity"
}
